import type { AuditedRequest } from './audit-log.ts';

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}

/** A permission a rule grants, e.g. `patch deployments.apps` or `update maintpages/finalizers.maintpage.example.com`. */
export type Permission = string;

function permission(verb: string, group: string, resource: string): Permission {
  return `${verb} ${resource}${group === '' ? '' : `.${group}`}`;
}

/** Every verb × resource × group a set of rules grants. */
export function grantedPermissions(rules: readonly PolicyRule[]): Permission[] {
  return rules.flatMap((rule) => (rule.apiGroups ?? ['']).flatMap((group) => (rule.resources ?? []).flatMap((resource) => rule.verbs.map((verb) => permission(verb, group, resource)))));
}

/**
 * What the audited requests show was used. A server-side apply that created its object (a PATCH answered 201) also
 * used `create`, which the API server checks for it; informers' list and watch are their own verbs.
 */
export function usedPermissions(requests: readonly AuditedRequest[]): Set<Permission> {
  const used = new Set<Permission>();
  for (const r of requests) {
    const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
    used.add(permission(r.verb, r.group, resource));
    if (r.verb === 'patch' && r.code === 201) used.add(permission('create', r.group, resource));
  }
  return used;
}

/**
 * Requests RBAC refused: a 403 that the authorizer did not allow. (One it allowed was refused by admission after it,
 * such as an Event for an object being finalized in a namespace being deleted: no permission was missing.)
 */
export function refusedByRbac(requests: readonly AuditedRequest[]): AuditedRequest[] {
  return requests.filter((r) => r.code === 403 && r.authorization !== 'allow');
}

/**
 * Permissions the rules grant that the code never used, less those `allowed` with a reason: least privilege means
 * this is empty after a run that exercises the operator.
 */
export function unusedPermissions(rules: readonly PolicyRule[], requests: readonly AuditedRequest[], allowed: Readonly<Record<Permission, string>> = {}): Permission[] {
  const used = usedPermissions(requests);
  return grantedPermissions(rules).filter((p) => !used.has(p) && !(p in allowed));
}
