// What a release ships per operator: the kustomize directories under deploy/ it is generated from and the images its
// objects name. deploy/<operator> is the install; ./prometheus and ./network-policy are the options users add.
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

export const RELEASED_OPERATORS = ['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator'] as const;
export type ReleasedOperator = (typeof RELEASED_OPERATORS)[number];

export interface OperatorSources {
  operator: ReleasedOperator;
  /** `kubectl apply -k` of this is the install. */
  install: string;
  /** ServiceMonitor and PrometheusRule (needs the Prometheus Operator's CRDs). */
  monitoring: string;
  networkPolicy: string;
  /** The images deploy/ names, the first being the operator's own. */
  images: readonly string[];
  description: string;
}

const DESCRIPTIONS: Readonly<Record<ReleasedOperator, string>> = {
  'maintpage-operator': 'MaintPage: switches a Service between its app and a maintenance page, by hand or on a schedule',
  'postgresql-operator': 'PostgreSQL with pg_dump backups to a volume or a bucket, restored before a pod serves, and restore drills',
  'nutanix-ahvvm-operator': 'AhvVm: Nutanix AHV virtual machines through Prism Central (v3 or v4), never created twice',
};

export function operatorSources(operator: ReleasedOperator): OperatorSources {
  const dir = join(REPOSITORY_ROOT, 'deploy', operator);
  return {
    operator,
    install: dir,
    monitoring: join(dir, 'prometheus'),
    networkPolicy: join(dir, 'network-policy'),
    images: operator === 'maintpage-operator' ? ['maintpage-operator', 'maintpage-page-server'] : [operator],
    description: DESCRIPTIONS[operator],
  };
}
