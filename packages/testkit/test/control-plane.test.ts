import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ControlPlane, KubeApi, KubeApiError, waitFor, writeKubeconfig } from '../src/index.ts';

// Every test file that starts a control plane in a directory of its own used to leave etcd's data there (64 MiB of
// preallocated WAL), and a CI run filled this machine's disk with them.
test('stopping a control plane deletes etcd\'s data and keeps the logs and kubeconfigs for diagnosis', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'control-plane-'));
  try {
    const plane = await ControlPlane.start({ dir });
    expect((await plane.adminGet('/readyz')).status).toBe(200);
    expect(existsSync(join(dir, 'etcd'))).toBe(true);
    await plane.stop();
    expect(existsSync(join(dir, 'etcd'))).toBe(false);
    expect(existsSync(join(plane.logDir, 'kube-apiserver.log'))).toBe(true);
    expect(existsSync(plane.adminKubeconfig)).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

// The e2e specs' least-privilege checks read what the operators' ServiceAccounts asked for from this log.
test('the API server audits a ServiceAccount\'s requests, refused ones included, and nobody else\'s', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'control-plane-'));
  const plane = await ControlPlane.start({ dir });
  try {
    const admin = await KubeApi.fromKubeconfig(plane.adminKubeconfig);
    await admin.create('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
    const { status } = await admin.create<{ status: { token: string } }>('/api/v1/namespaces/default/serviceaccounts/reader/token', {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 },
    });
    const reader = await KubeApi.fromKubeconfig(await writeKubeconfig(join(dir, 'reader.kubeconfig'), {
      server: plane.url, caPem: plane.pki.caPem, user: 'reader', credentials: { kind: 'token', token: status.token }, namespace: 'default',
    }));
    await expect(reader.get('/api/v1/namespaces/default/configmaps/settings')).rejects.toBeInstanceOf(KubeApiError);
    const user = 'system:serviceaccount:default:reader';
    const requests = await waitFor(async () => {
      const found = await plane.auditedRequests(user);
      return found.length > 0 ? found : undefined;
    }, { what: 'the reader\'s request in the audit log' });
    expect(requests).toEqual([{ user, verb: 'get', group: '', resource: 'configmaps', subresource: undefined, namespace: 'default', name: 'settings', code: 403, authorization: 'forbid' }]);
    expect((await plane.auditedRequests()).filter((r) => !r.user.startsWith('system:serviceaccount:'))).toEqual([]);
  } finally {
    await plane.stop();
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
