import { expect, test } from 'vitest';
import type { AuditedRequest } from './audit-log.ts';
import { grantedPermissions, refusedByRbac, unusedPermissions } from './rbac-usage.ts';

const request = (verb: string, group: string, resource: string, code = 200, subresource?: string, authorization: AuditedRequest['authorization'] = code === 403 ? 'forbid' : 'allow'): AuditedRequest =>
  ({ user: 'u', verb, group, resource, subresource, namespace: 'ns', name: undefined, code, authorization });

test('rules expand to verb × resource × group', () => {
  expect(grantedPermissions([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'watch'] }, { apiGroups: [''], resources: ['services', 'configmaps'], verbs: ['patch'] }]))
    .toEqual(['list deployments.apps', 'watch deployments.apps', 'patch services', 'patch configmaps']);
});

test('a permission is unused unless a request used it; an apply that created counts as create', () => {
  const rules = [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'create', 'patch', 'delete'] }, { apiGroups: ['x.io'], resources: ['things/status'], verbs: ['patch'] }];
  const requests = [request('list', 'apps', 'deployments'), request('patch', 'apps', 'deployments', 201), request('patch', 'x.io', 'things', 200, 'status')];
  expect(unusedPermissions(rules, requests)).toEqual(['delete deployments.apps']);
  expect(unusedPermissions(rules, requests, { 'delete deployments.apps': 'only after a rename' })).toEqual([]);
  expect(unusedPermissions(rules, [request('patch', 'apps', 'deployments', 200)])).toContain('create deployments.apps');
});

// Seen on kind: the Nutanix operator's Events for AhvVms it finalized while the spec deleted their namespace were
// answered 403 by NamespaceLifecycle admission, after RBAC had allowed them.
test('a 403 is a missing permission unless the authorizer allowed the request and admission refused it', () => {
  const rbac = request('list', '', 'secrets', 403);
  const terminating = request('create', 'events.k8s.io', 'events', 403, undefined, 'allow');
  const unknown = request('get', '', 'configmaps', 403, undefined, undefined);
  expect(refusedByRbac([rbac, terminating, unknown, request('get', '', 'pods')])).toEqual([rbac, unknown]);
});
