// The backup store service as it runs: its own process (the image's entry point with `backup-store`), HTTPS with a
// certificate from --cert-dir, callers' tokens checked by a real API server, the store service's ServiceAccount
// allowed only to create TokenReviews.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServingCertificate, freePort, TestCluster, waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunks, key, manifestFor } from './backup-store-contract.ts';
import { RemoteBackupStore } from '../src/backup-store/remote-store.ts';
import { BACKUP_STORE_AUDIENCE } from '../src/backup-store/store-protocol.ts';

const ENTRY = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const OPERATOR_NS = 'postgresql-operator-system';

let cluster: TestCluster;
let service: ChildProcess;
let url: string;
let ca: string;
let backupDir: string;
const logs: string[] = [];
const tokens: Record<string, string> = {};

async function serviceAccount(namespace: string, name: string): Promise<void> {
  const api = await cluster.admin();
  await api.create(`/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
}

/** A token of the ServiceAccount, bound to `audience` as a projected one is. */
async function token(namespace: string, name: string, audience?: string): Promise<string> {
  const api = await cluster.admin();
  const answer = await api.create<{ status: { token: string } }>(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600, ...(audience === undefined ? {} : { audiences: [audience] }) },
  });
  return answer.status.token;
}

beforeAll(async () => {
  cluster = await TestCluster.start({ node: false });
  const api = await cluster.admin();
  for (const name of [OPERATOR_NS, 'shop']) await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const name of ['controller-manager', 'backup-store']) await serviceAccount(OPERATOR_NS, name);
  await serviceAccount('shop', 'foodb-backup');
  await api.create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'backup-store' }, rules: [{ apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] }] });
  await api.create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'backup-store' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'backup-store' }, subjects: [{ kind: 'ServiceAccount', name: 'backup-store', namespace: OPERATOR_NS }] });
  tokens.operator = await token(OPERATOR_NS, 'controller-manager', BACKUP_STORE_AUDIENCE);
  tokens.job = await token('shop', 'foodb-backup', BACKUP_STORE_AUDIENCE);
  tokens.operatorForApiServer = await token(OPERATOR_NS, 'controller-manager');

  const certificate = await createServingCertificate(cluster.dir, cluster.controlPlane.pki, 'backup-store');
  ca = cluster.controlPlane.pki.caPem;
  backupDir = join(cluster.dir, 'backups');
  // Mounted as a kubernetes.io/tls Secret would be.
  await mkdir(join(cluster.dir, 'tls'));
  await copyFile(certificate.cert, join(cluster.dir, 'tls', 'tls.crt'));
  await copyFile(certificate.key, join(cluster.dir, 'tls', 'tls.key'));
  await mkdir(backupDir);
  const port = await freePort();
  url = `https://127.0.0.1:${port}`;
  service = spawn(process.execPath, ['--conditions=source', ENTRY, 'backup-store', `--backup-dir=${backupDir}`, `--bind-address=127.0.0.1:${port}`,
    `--cert-dir=${join(cluster.dir, 'tls')}`, `--operator-service-account=${OPERATOR_NS}:controller-manager`,
    `--kubeconfig=${await cluster.serviceAccountKubeconfig(OPERATOR_NS, 'backup-store')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  service.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  await waitFor(() => logs.join('').includes('backup store serving') || undefined, { what: 'the backup store service to listen', timeoutMs: 60_000 });
});

afterAll(async () => {
  service.kill('SIGKILL');
  await cluster.stop();
});

/** The service as a store for a caller with `bearer`, trusting the cluster CA unless told to trust only the system's. */
const remote = (bearer: string | undefined, trust: 'cluster CA' | 'system CAs' = 'cluster CA'): RemoteBackupStore =>
  new RemoteBackupStore({ url, token: () => Promise.resolve(bearer ?? ''), ...(trust === 'cluster CA' ? { ca } : {}) });

describe('the backup store service', () => {
  it("takes a backup Job's upload into the volume and serves it to the operator", async () => {
    const job = remote(tokens.job);
    const k = key('foodb-1', 'foodb', 'shop');
    const stored = await job.write(k, chunks('PGDMP', ' a custom-format dump'));
    expect(await job.digest(k)).toEqual(stored);
    await job.finalize(manifestFor(k, stored));
    // On the volume, as the operator wrote it before: the same files, the same layout.
    expect(await readFile(join(backupDir, 'shop', 'foodb', 'foodb-1.dump'), 'utf8')).toBe('PGDMP a custom-format dump');
    const listing = await remote(tokens.operator).list({ namespace: 'shop' });
    expect(listing.backups.map((b) => b.key.backup)).toEqual(['foodb-1']);
    await expect(job.list({ namespace: 'shop' })).rejects.toThrow(/refused list \(403\): system:serviceaccount:shop:foodb-backup may not list/);
  });

  it('refuses tokens for the API server, and no token', async () => {
    await expect(remote(tokens.operatorForApiServer).list()).rejects.toThrow(/refused list \(401\): the token was not accepted/);
    await expect(remote(undefined).list()).rejects.toThrow(/\(401\): no bearer token/);
  });

  it('is trusted only through the CA that signed its certificate', async () => {
    await expect(remote(tokens.operator, 'system CAs').list()).rejects.toThrow(/presented a certificate that was not accepted/);
  });

  it('stops on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs.join('')).toContain('"msg":"stopped"');
  });
});
