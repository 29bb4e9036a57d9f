import { requiredName, requiredNamespace } from '@k8s-operators/controller-core';
import type { PostgreSQL } from '../api/postgresql-resource.ts';

/**
 * Names of a PostgreSQL and of the objects it owns. The Service and the Deployment are named after the PostgreSQL, as
 * in the seed (`kubectl get svc foodb`); the data volume's claim is `<name>-data`.
 */

export function dataClaimName(postgresql: PostgreSQL): string {
  return `${requiredName(postgresql)}-data`;
}

/** `namespace/name`: the key of the PostgreSQL in caches, queues and locks. */
export function instanceKey(postgresql: PostgreSQL): string {
  return `${requiredNamespace(postgresql)}/${requiredName(postgresql)}`;
}

/** The Service name is a DNS-1035 label, and the name is also a label value: both allow 63 characters. */
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const MAX_NAME_LENGTH = 63;

/**
 * Why the PostgreSQL's name cannot name its Service and label its pods, or undefined when it can. The CRD cannot
 * check `metadata.name` beyond what every object allows (a DNS subdomain of 253 characters), so the controller does.
 */
export function nameProblem(postgresql: PostgreSQL): string | undefined {
  const name = requiredName(postgresql);
  if (name.length <= MAX_NAME_LENGTH && DNS_1035_LABEL.test(name)) return undefined;
  return (
    `the name ${JSON.stringify(name)} cannot name the PostgreSQL's Service: use at most ${MAX_NAME_LENGTH} ` +
    "lowercase letters, digits and '-', starting with a letter and ending with a letter or digit"
  );
}
