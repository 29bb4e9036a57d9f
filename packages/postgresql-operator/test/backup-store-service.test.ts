// The backup store service as it runs: its own process (the image's entry point with `backup-store`), HTTPS with the
// certificate the operator keeps in a Secret, found through its EndpointSlice, callers' tokens checked by a real API
// server, the store service's ServiceAccount allowed only to create TokenReviews.
import type { ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { Agent, request as httpsRequest } from 'node:https';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeClient, Resources } from '@k8s-operators/controller-core';
import { TestCluster } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunks, key, manifestFor } from './backup-store-contract.ts';
import { startStoreProcess } from './backup-store-process.ts';
import { RemoteBackupStore } from '../src/store-service/remote-store.ts';
import { ensureStoreCertificate, RENEW_BEFORE_MS } from '../src/store-service/store-certificate.ts';
import { StoreEndpoints } from '../src/store-service/store-endpoint.ts';
import { BACKUP_STORE_AUDIENCE } from '../src/store-service/store-protocol.ts';

const OPERATOR_NS = 'postgresql-operator-system';

const SERVICE = { namespace: OPERATOR_NS, name: 'backup-store', secretName: 'backup-store-tls' };

let cluster: TestCluster;
let admin: KubeClient;
let service: ChildProcess;
let url: string;
let ca: string;
let backupDir: string;
let logs: () => string;
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

  admin = await KubeClient.load({ kubeconfig: cluster.adminKubeconfig });
  backupDir = join(cluster.dir, 'backups');
  await mkdir(backupDir);
  const started = await startStoreProcess({
    admin, service: SERVICE, backupDir, workDir: cluster.dir, operatorServiceAccount: `${OPERATOR_NS}:controller-manager`,
    kubeconfig: await cluster.serviceAccountKubeconfig(OPERATOR_NS, 'backup-store'),
  });
  ({ child: service, logs } = started);
  ({ url, ca } = started.endpoint);
  // What the endpointslice controller writes for the Service once the service's Pod is ready.
  await admin.create(Resources.EndpointSlice, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
    metadata: { namespace: OPERATOR_NS, name: 'backup-store-abcde', labels: { 'kubernetes.io/service-name': SERVICE.name } },
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'https', port: started.port, protocol: 'TCP' }],
  });
});

afterAll(async () => {
  service.kill('SIGKILL');
  await admin.close();
  await cluster.stop();
});

/** The service at its address, for a caller with `bearer`, trusting its certificate unless told to trust only the system's. */
const remote = (bearer: string | undefined, trust: 'its certificate' | 'system CAs' = 'its certificate'): RemoteBackupStore =>
  new RemoteBackupStore({ endpoint: { url, serverName: 'backup-store.postgresql-operator-system.svc', ...(trust === 'its certificate' ? { ca } : {}) }, token: () => Promise.resolve(bearer ?? '') });

describe("the service's certificate, kept by the operator", () => {
  it('is made once for the Service\'s names, kept while valid, and replaced a month before it expires', async () => {
    const service = { namespace: 'shop', name: 'store', secretName: 'store-tls' };
    // Two replicas starting at once agree on one certificate.
    const [first, second] = await Promise.all([ensureStoreCertificate(admin, service), ensureStoreCertificate(admin, service)]);
    expect(second).toBe(first);
    const certificate = new X509Certificate(first);
    expect(certificate.subjectAltName).toBe('DNS:store, DNS:store.shop, DNS:store.shop.svc, DNS:store.shop.svc.cluster.local');
    const secret = await admin.get(Resources.Secret, { namespace: 'shop', name: 'store-tls' });
    expect(secret?.type).toBe('kubernetes.io/tls');
    expect(await ensureStoreCertificate(admin, service)).toBe(first);
    const nearExpiry = Date.parse(certificate.validTo) - RENEW_BEFORE_MS + 60_000;
    const renewed = await ensureStoreCertificate(admin, service, () => nearExpiry);
    expect(renewed).not.toBe(first);
    expect(Buffer.from((await admin.get(Resources.Secret, { namespace: 'shop', name: 'store-tls' }))?.data?.['tls.crt'] ?? '', 'base64').toString()).toBe(renewed);
  });
});

describe('the service found through its EndpointSlices', () => {
  it('says so when no endpoint is ready', async () => {
    await admin.create(Resources.EndpointSlice, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
      metadata: { namespace: 'shop', name: 'down-abcde', labels: { 'kubernetes.io/service-name': 'down' } },
      endpoints: [{ addresses: ['10.0.0.9'], conditions: { ready: false } }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }],
    });
    await expect(new StoreEndpoints(admin, { namespace: 'shop', name: 'down', secretName: 'down-tls' }).current()).rejects.toThrow(
      'the backup store service down in namespace shop has no ready endpoint: check its Deployment (kubectl -n shop get deploy,pods -l app.kubernetes.io/component=backup-store)',
    );
  });
});

describe('the backup store service', () => {
  it("takes a backup Job's upload into the volume and serves it to the operator", async () => {
    const job = remote(tokens.job);
    const k = key('foodb-1', 'foodb', 'shop');
    const stored = await job.write(k, chunks('PGDMP', ' a custom-format dump'));
    expect(await job.digest(k)).toEqual(stored);
    await job.finalize(manifestFor(k, stored));
    // On the volume, as the operator wrote it before: the same files, the same layout.
    expect(await readFile(join(backupDir, 'shop', 'foodb', 'foodb-1.dump'), 'utf8')).toBe('PGDMP a custom-format dump');
    // The operator finds the service through its EndpointSlice and checks the certificate against the Service's name.
    const operator = new RemoteBackupStore({ endpoint: new StoreEndpoints(admin, SERVICE), token: () => Promise.resolve(tokens.operator ?? '') });
    const listing = await operator.list({ namespace: 'shop' });
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

  it('keeps an idle connection open longer than a client pools it, so a reused connection is never reset', async () => {
    // A client that pools idle connections for a minute: past Node's 5 s, at which both sides used to close theirs.
    const agent = new Agent({ keepAlive: true, maxSockets: 1, timeout: 60_000, ca, servername: 'backup-store.postgresql-operator-system.svc' });
    const healthz = (): Promise<{ status: number | undefined; reused: boolean }> => new Promise((resolve, reject) => {
      const request = httpsRequest(`${url}/healthz`, { agent }, (response) => {
        response.resume();
        response.once('end', () => { resolve({ status: response.statusCode, reused: request.reusedSocket }); });
      });
      request.once('error', reject);
      request.end();
    });
    try {
      expect(await healthz()).toEqual({ status: 200, reused: false });
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await healthz()).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('stops on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs()).toContain('"msg":"stopped"');
  });
});
