import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ControlPlane } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/client/errors.ts';
import { KubeClient } from '../src/client/kube-client.ts';
import type { ClusterAuth } from '../src/client/kubeconfig/cluster-auth.ts';
import { loadClusterAuth } from '../src/client/kubeconfig/load-cluster-auth.ts';
import { base64, singleContext, temporaryDirectory, writeKubeconfig } from './kubeconfig-fixtures.ts';

let dir: Awaited<ReturnType<typeof temporaryDirectory>>;
let controlPlane: ControlPlane;
let admin: ClusterAuth;

beforeAll(async () => {
  dir = await temporaryDirectory();
  controlPlane = await ControlPlane.start({ dir: join(dir.path, 'cluster') });
  admin = await loadClusterAuth({ kubeconfig: controlPlane.adminKubeconfig, env: {} });
});
afterAll(async () => {
  await controlPlane.stop();
  await dir.remove();
});

/** What the API server answered: the body of a success, or the status and message of a refusal. */
type Answer = { ok: true; body: { kind?: string; status?: { token?: string; userInfo?: unknown } } } | { ok: false; status: number; message: string };

/** One request through KubeClient with these credentials, as an operator would send it. */
async function call(auth: ClusterAuth, method: 'GET' | 'POST', path: string, body?: object): Promise<Answer> {
  const client = KubeClient.fromClusterAuth(auth, { userAgent: 'kubeconfig-loader-test' });
  try {
    return { ok: true, body: await client.raw(method, path, body) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, status: error.status, message: error.message };
    throw error;
  } finally {
    await client.close();
  }
}

/** The body of a request that must succeed. */
async function answered(auth: ClusterAuth, method: 'GET' | 'POST', path: string, body?: object): Promise<Extract<Answer, { ok: true }>['body']> {
  const answer = await call(auth, method, path, body);
  if (!answer.ok) throw new Error(`${method} ${path} was refused: ${answer.message}`);
  return answer.body;
}

const whoAmI = async (auth: ClusterAuth): Promise<unknown> =>
  (await answered(auth, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status
    ?.userInfo;

/** A ServiceAccount and a token for it from the TokenRequest API. */
async function serviceAccountToken(name: string): Promise<string> {
  await answered(admin, 'POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  const answer = await answered(admin, 'POST', `/api/v1/namespaces/default/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 600 },
  });
  const token = answer.status?.token;
  if (token === undefined) throw new Error('TokenRequest returned no token');
  return token;
}

const cluster = (): object => ({ server: controlPlane.url, 'certificate-authority-data': base64(controlPlane.pki.caPem) });

it('the admin kubeconfig (client certificate, CA data) lists namespaces', async () => {
  expect(await answered(admin, 'GET', '/api/v1/namespaces')).toMatchObject({ kind: 'NamespaceList' });
  expect(await whoAmI(admin)).toMatchObject({ username: 'testkit-admin', groups: ['system:masters', 'system:authenticated'] });
});

describe('a ServiceAccount token', () => {
  let token: string;
  beforeAll(async () => {
    token = await serviceAccountToken('reader');
  });
  const serviceAccountIdentity = {
    username: 'system:serviceaccount:default:reader',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
  };

  it('as a kubeconfig token: the API server sees the ServiceAccount', async () => {
    const auth = await loadClusterAuth({ kubeconfig: await writeKubeconfig(join(dir.path, 'sa/config'), singleContext(cluster(), { token })) });
    const answer = await call(auth, 'GET', '/api/v1/namespaces');
    expect(answer).toMatchObject({ ok: false, status: 403 });
    expect(answer.ok ? '' : answer.message).toContain('User "system:serviceaccount:default:reader" cannot list resource "namespaces"');
    expect(await whoAmI(auth)).toMatchObject(serviceAccountIdentity);
  });

  it('as a tokenFile, and in-cluster from a mounted ServiceAccount directory', async () => {
    const mount = join(dir.path, 'sa/mount');
    await mkdir(mount, { recursive: true });
    await writeFile(join(mount, 'token'), token);
    await writeFile(join(mount, 'ca.crt'), controlPlane.pki.caPem);
    const fromTokenFile = await loadClusterAuth({
      kubeconfig: await writeKubeconfig(join(dir.path, 'sa/token-file-config'), singleContext(cluster(), { tokenFile: 'mount/token' })),
    });
    expect(await whoAmI(fromTokenFile)).toMatchObject(serviceAccountIdentity);

    const port = new URL(controlPlane.url).port;
    const inCluster = await loadClusterAuth({ env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port }, serviceAccountDir: mount });
    expect(inCluster.server).toBe(controlPlane.url);
    expect(await whoAmI(inCluster)).toMatchObject(serviceAccountIdentity);
  });

  it('from an exec plugin', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never', command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`] };
    const auth = await loadClusterAuth({ kubeconfig: await writeKubeconfig(join(dir.path, 'sa/exec-config'), singleContext(cluster(), { exec })) });
    expect(await whoAmI(auth)).toMatchObject(serviceAccountIdentity);
  });
});

it('impersonation: the API server sees the user, uid, both groups and the extra values', async () => {
  const adminUser = { 'client-certificate': join(controlPlane.dir, 'pki/admin.crt'), 'client-key': join(controlPlane.dir, 'pki/admin.key') };
  const user = { ...adminUser, as: 'jane', 'as-uid': 'uid-42', 'as-groups': ['developers', 'on-call'], 'as-user-extra': { scopes: ['read', 'write'], 'example.com/team': ['db'] } };
  const auth = await loadClusterAuth({ kubeconfig: await writeKubeconfig(join(dir.path, 'impersonate/config'), singleContext(cluster(), user)) });
  expect(await whoAmI(auth)).toEqual({
    username: 'jane',
    uid: 'uid-42',
    // Two groups, not one named "developers, on-call": each is its own header line.
    groups: ['developers', 'on-call', 'system:authenticated'],
    extra: { scopes: ['read', 'write'], 'example.com/team': ['db'] },
  });
});
