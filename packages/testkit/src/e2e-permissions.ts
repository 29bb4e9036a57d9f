import { parseAllDocuments } from 'yaml';
import type { AuditedRequest } from './audit-log.ts';
import type { E2eCluster } from './e2e.ts';
import type { PolicyRule } from './rbac-usage.ts';

export interface OperatorPermissions {
  /** The rules of the operator's manager and leader-election roles, as the install (E2E_INSTALL) made them. */
  rules: PolicyRule[];
  /** Every request the operator's ServiceAccount made, from the API server's audit log. */
  requests: AuditedRequest[];
}

/**
 * What an installed operator may do and what it did, for least-privilege checks. The names follow the kustomizations'
 * convention: namespace `<operator>-system`, names prefixed `<operator>-`, ServiceAccount `controller-manager`.
 * Returns undefined on a cluster whose audit log cannot be read here (E2eCluster.auditedRequests).
 */
export async function operatorPermissions(cluster: E2eCluster, operator: string): Promise<OperatorPermissions | undefined> {
  if (!cluster.auditedRequests) return undefined;
  const built = await cluster.installer.installedObjects(operator);
  const roleNames = [`${operator}-manager-role`, `${operator}-leader-election-role`];
  const roles = parseAllDocuments(built)
    .map((document) => document.toJSON() as { metadata?: { name?: string }; rules?: PolicyRule[] })
    .filter((object) => roleNames.includes(object.metadata?.name ?? ''));
  if (roles.length !== roleNames.length) throw new Error(`the ${cluster.installer.way} install of ${operator} should define the roles ${roleNames.join(' and ')}`);
  const requests = await cluster.auditedRequests(`system:serviceaccount:${operator}-system:${operator}-controller-manager`);
  return { rules: roles.flatMap((role) => role.rules ?? []), requests };
}
