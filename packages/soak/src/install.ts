// Everything the soak runs against, installed as a user would: the three operators from deploy/ (`kubectl apply -k`,
// their images (on kind, an overlay naming the images loaded there), the PostgreSQL operator's two replicas), a Prism
// Central (the simulator) with the operator's Secret, SeaweedFS for the bucket store, and a real Prometheus that scrapes each operator as its ServiceMonitor says and
// evaluates the shipped PrometheusRules unchanged.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrismSimulator, type PrismSimulator } from '@k8s-operators/prism-simulator';
import {
  prepareScrapeAccess, serviceMonitorJob, shippedRuleFiles, startPrometheus, startSeaweedFs, waitForCrdsEstablished,
  type RunningPrometheus, type RunningSeaweedFs,
} from '@k8s-operators/testkit';
import type { SoakCluster } from './cluster/soak-cluster.ts';
import { OPERATORS, type OperatorName } from './timeline.ts';

export const OPERATOR_DEPLOYMENT: Readonly<Record<OperatorName, string>> = {
  'maintpage-operator': 'maintpage-operator-controller-manager',
  'postgresql-operator': 'postgresql-operator-controller-manager',
  'nutanix-ahvvm-operator': 'nutanix-ahvvm-operator-controller-manager',
};
const CRDS: Readonly<Record<OperatorName, string[]>> = {
  'maintpage-operator': ['maintpages.maintpage.example.com'],
  'postgresql-operator': ['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp'],
  'nutanix-ahvvm-operator': ['ahvvms.nutanix.com'],
};
export const operatorNamespace = (operator: OperatorName): string => `${operator}-system`;
export const SOAK_BUCKET = 'soak-backups';

export interface Installed {
  prism: PrismSimulator;
  seaweed: RunningSeaweedFs;
  prometheus: RunningPrometheus;
  stop(): Promise<void>;
}

export async function install(cluster: SoakCluster, say: (line: string) => void): Promise<Installed> {
  say('soak: starting the Prism Central simulator (TLS) and SeaweedFS (S3); installing the three operators from deploy/');
  // Tasks long enough that the operator follows them, as against a real Prism Central.
  const host = cluster.servicesHost;
  const prism = await startPrismSimulator({ tls: true, host, tlsHostnames: [host], timings: { createMs: 1_000, updateMs: 500, deleteMs: 500, learnedIpMs: 500 } });
  const seaweed = await startSeaweedFs({ bucket: SOAK_BUCKET, host });
  // Prism v3 first; at half-time the workload removes PRISM_API_VERSION and the operator's default, auto, finds v4.
  const prismSecret = {
    PRISM_HOST: prism.host, PRISM_PORT: String(prism.port), PRISM_USER: prism.username, PRISM_PASS: prism.password,
    PRISM_CLUSTERUUID: prism.clusters[0]?.uuid ?? '', PRISM_CA_CERT: prism.caCertPem ?? '', PRISM_API_VERSION: 'v3',
  };
  await cluster.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: operatorNamespace('nutanix-ahvvm-operator') } }) });
  await cluster.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 'prism-central', namespace: operatorNamespace('nutanix-ahvvm-operator') }, stringData: prismSecret,
  }) });
  for (const operator of OPERATORS) {
    await cluster.kubectlOk(['apply', '-k', cluster.installDir(operator)]);
    await waitForCrdsEstablished((args) => cluster.kubectlOk(args), CRDS[operator]);
  }
  for (const operator of OPERATORS) {
    await cluster.kubectlOk(['-n', operatorNamespace(operator), 'rollout', 'status', `deployment/${OPERATOR_DEPLOYMENT[operator]}`, '--timeout=300s']);
  }

  say('soak: starting Prometheus: every operator scraped as its ServiceMonitor says, the shipped PrometheusRules evaluated');
  const access = await prepareScrapeAccess(cluster, 'soak-monitoring', OPERATORS);
  const jobs = [];
  for (const operator of OPERATORS) {
    const also = operator === 'postgresql-operator' ? ['postgresql-operator-backup-store'] : [];
    jobs.push(await serviceMonitorJob(operator, operator, access, access.prometheusToken, also));
  }
  const rulesDir = await mkdtemp(join(tmpdir(), 'soak-rules-'));
  const prometheus = await startPrometheus(jobs, { ruleFiles: await shippedRuleFiles(OPERATORS, rulesDir) });
  return {
    prism, seaweed, prometheus,
    stop: async () => {
      await prometheus.stop();
      await rm(rulesDir, { recursive: true, force: true });
      await access.remove();
      await seaweed.stop();
      await prism.stop();
    },
  };
}
