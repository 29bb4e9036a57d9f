import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { parseAuditLog, readAuditLogDir } from './audit-log.ts';

const operator = 'system:serviceaccount:maintpage-operator-system:maintpage-operator-controller-manager';
/** One event as kube-apiserver writes it with --audit-log-format=json (Metadata level, the fields read here). */
const event = (user: string, verb: string, resource: string | undefined, code: number, extra: Record<string, string> = {}, decision = code === 403 ? 'forbid' : 'allow'): string => JSON.stringify({
  kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', stage: 'ResponseComplete', verb,
  user: { username: user, groups: ['system:serviceaccounts'] },
  annotations: { 'authorization.k8s.io/decision': decision, 'authorization.k8s.io/reason': '' },
  ...(resource === undefined ? { requestURI: '/healthz' } : { objectRef: { resource, ...extra } }),
  responseStatus: { code },
});

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

test('parseAuditLog reads requests on resources, of one user or all, with group, namespace, name and answer', () => {
  const text = [
    event(operator, 'patch', 'maintpages', 200, { apiGroup: 'maintpage.k8s-operators.dev', namespace: 'shop', name: 'front', subresource: 'status' }),
    event(operator, 'get', undefined, 200),
    event('system:serviceaccount:kube-system:default', 'list', 'pods', 403),
  ].join('\n');
  expect(parseAuditLog(text, operator)).toEqual([
    { user: operator, verb: 'patch', group: 'maintpage.k8s-operators.dev', resource: 'maintpages', subresource: 'status', namespace: 'shop', name: 'front', code: 200, authorization: 'allow' },
  ]);
  expect(parseAuditLog(text).map((r) => `${r.verb} ${r.resource} ${String(r.code)} ${String(r.authorization)}`)).toEqual(['patch maintpages 200 allow', 'list pods 403 forbid']);
  // Admission's refusal after RBAC allowed it, as a namespace being deleted answers.
  expect(parseAuditLog(event(operator, 'create', 'events', 403, {}, 'allow'))).toMatchObject([{ code: 403, authorization: 'allow' }]);
});

test('readAuditLogDir reads the rotated files oldest first, then audit.log, leaving a line still being written', async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-log-'));
  await writeFile(join(dir, 'audit-2026-11-29T10-00-00.000.log'), `${event(operator, 'create', 'leases', 201)}\n`);
  await writeFile(join(dir, 'audit-2026-11-29T09-00-00.000.log'), `${event(operator, 'get', 'leases', 404)}\n`);
  await writeFile(join(dir, 'audit.log'), `${event(operator, 'update', 'leases', 200)}\n${event(operator, 'update', 'leases', 200).slice(0, 40)}`);
  await writeFile(join(dir, 'audit-policy.yaml'), 'not a log');
  expect((await readAuditLogDir(dir, operator)).map((r) => `${r.verb} ${String(r.code)}`)).toEqual(['get 404', 'create 201', 'update 200']);
});

test('readAuditLogDir says where it looked when the API server writes no log there', async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-log-'));
  await expect(readAuditLogDir(dir)).rejects.toThrow(`no audit.log in ${dir}: is the API server writing its audit log there?`);
});
