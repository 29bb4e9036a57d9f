// The metrics server as installed: HTTPS, every request authenticated (TokenReview) and authorized
// (SubjectAccessReview) by a real API server, with the ClusterRoles from deploy/.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import pino from 'pino';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ControlPlane, KubeApi, REPOSITORY_ROOT, waitFor, writeKubeconfig } from '@k8s-operators/testkit';
import { KubeClient, Manager, Resources, TokenAuthenticator, type ManagerOptions } from '../src/index.ts';
import { selfSignedCertificate } from '../src/manager/self-signed-certificate.ts';

const NS = 'operator-system';
const OPERATOR = `system:serviceaccount:${NS}:controller-manager`;
const quiet = pino({ level: 'silent' });

let cp: ControlPlane;
let api: KubeApi;
let operatorKubeconfig: string;
const tokens: Record<string, string> = {};

interface ClusterRole { metadata: { name: string }; rules: unknown[] }
const deployRole = async (file: string): Promise<ClusterRole> => parse(await readFile(join(REPOSITORY_ROOT, 'deploy/maintpage-operator/rbac', file), 'utf8')) as ClusterRole;

async function serviceAccount(namespace: string, name: string): Promise<string> {
  await api.create(`/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  return tokenFor(namespace, name);
}

/** A token of the ServiceAccount from the TokenRequest API; bound to `audiences` when given, as a projected one is. */
async function tokenFor(namespace: string, name: string, audiences?: string[]): Promise<string> {
  const request = await api.create<{ status: { token: string } }>(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600, ...(audiences === undefined ? {} : { audiences }) },
  });
  return request.status.token;
}

async function bindClusterRole(role: string, namespace: string, serviceAccountName: string): Promise<void> {
  await api.create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${serviceAccountName}-${role}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccountName, namespace }],
  });
}

beforeAll(async () => {
  cp = await ControlPlane.start({ dir: await mkdtemp(join(tmpdir(), 'metrics-auth-')) });
  api = await KubeApi.fromKubeconfig(cp.adminKubeconfig);
  for (const ns of [NS, 'monitoring']) await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // The ClusterRoles of deploy/, named as kustomize's namePrefix names them.
  for (const file of ['metrics_auth_role.yaml', 'metrics_reader_role.yaml']) {
    const role = await deployRole(file);
    await api.create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `maintpage-operator-${role.metadata.name}` }, rules: role.rules });
  }
  await api.create('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'debug-queue-reader' }, rules: [{ nonResourceURLs: ['/debug/queue'], verbs: ['get'] }],
  });
  await api.create('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'configmap-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] }],
  });
  // The manager runs as its ServiceAccount with the metrics-auth role (and what its controller reads), so the audit
  // log shows its reviews.
  const operatorToken = await serviceAccount(NS, 'controller-manager');
  await bindClusterRole('maintpage-operator-metrics-auth-role', NS, 'controller-manager');
  await bindClusterRole('configmap-reader', NS, 'controller-manager');
  operatorKubeconfig = await writeKubeconfig(join(cp.dir, 'operator.kubeconfig'), {
    server: cp.url, caPem: cp.pki.caPem, user: 'operator', credentials: { kind: 'token', token: operatorToken },
  });
  for (const name of ['prometheus', 'intruder', 'debugger', 'cached', 'crowd']) tokens[name] = await serviceAccount('monitoring', name);
  for (const name of ['prometheus', 'cached', 'crowd']) await bindClusterRole('maintpage-operator-metrics-reader', 'monitoring', name);
  await bindClusterRole('debug-queue-reader', 'monitoring', 'debugger');
  await api.create(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'reconciled', namespace: NS } });
});
afterAll(async () => {
  await api.close();
  await cp.stop();
});

interface Started { manager: Manager; done: Promise<void> }

async function startManager(options: Partial<ManagerOptions> = {}): Promise<Started> {
  const manager = await Manager.create({
    name: 'maintpage-operator', kubeconfig: operatorKubeconfig, namespace: NS, logger: quiet, leaderElection: { enabled: false },
    healthProbeBindAddress: '127.0.0.1:0', metricsBindAddress: '127.0.0.1:0', gracefulShutdownTimeoutMs: 2_000, ...options,
  });
  manager.controller('configmaps').for(Resources.ConfigMap).complete(() => Promise.resolve(undefined));
  const done = manager.start();
  done.catch(() => undefined);
  await waitFor(() => manager.ports.metrics, { what: 'the metrics server' });
  return { manager, done };
}

interface Answer { status: number; body: string; certificate: X509Certificate | undefined; contentType: string | undefined }

/** GET over HTTPS as a scraper with insecureSkipVerify would: the certificate is shown, not verified. */
function scrape(port: number | undefined, path: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }, (res) => {
      const raw = (res.socket as TLSSocket).getPeerX509Certificate();
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body, certificate: raw, contentType: res.headers['content-type'] }); });
    });
    req.on('error', reject);
    req.end();
  });
}

async function reviews(): Promise<{ tokenReviews: number; accessReviews: number }> {
  const requests = await cp.auditedRequests(OPERATOR);
  return {
    tokenReviews: requests.filter((r) => r.verb === 'create' && r.resource === 'tokenreviews').length,
    accessReviews: requests.filter((r) => r.verb === 'create' && r.resource === 'subjectaccessreviews').length,
  };
}

describe('secure metrics (the default)', () => {
  let started: Started;
  beforeAll(async () => { started = await startManager(); });
  afterAll(async () => {
    started.manager.stop();
    await started.done;
  });
  const port = (): number | undefined => started.manager.ports.metrics;

  test('HTTPS with a self-signed certificate made at start; plain HTTP is not answered', async () => {
    const answer = await scrape(port(), '/metrics');
    expect(answer.certificate?.subject).toBe('CN=maintpage-operator');
    expect(answer.certificate?.issuer).toBe(answer.certificate?.subject);
    expect(answer.certificate?.verify(answer.certificate.publicKey)).toBe(true);
    expect(answer.certificate?.checkIP('127.0.0.1')).toBe('127.0.0.1');
    await expect(fetch(`http://127.0.0.1:${String(port())}/metrics`)).rejects.toThrow();
  });

  test('no token or a bad token: 401, saying what to send', async () => {
    const none = await scrape(port(), '/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toBe('Unauthorized: send a bearer token (Authorization: Bearer <token>) of a user or ServiceAccount that may get /metrics, e.g. bound to the ClusterRole maintpage-operator-metrics-reader\n');
    const bad = await scrape(port(), '/metrics', 'not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.body).toMatch(/^Unauthorized: the bearer token was not accepted \(TokenReview: .+\)\n$/);
  });

  test('a ServiceAccount without the metrics-reader binding: 403, naming the ClusterRole to bind', async () => {
    const answer = await scrape(port(), '/metrics', tokens.intruder);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/^Forbidden: user "system:serviceaccount:monitoring:intruder" may not get \/metrics: bind the ClusterRole maintpage-operator-metrics-reader \(kubectl create clusterrolebinding <name> --clusterrole=maintpage-operator-metrics-reader --serviceaccount=monitoring:intruder\)/);
  });

  test('with the metrics-reader binding: 200 and controller-runtime\'s series', async () => {
    // The namespace's ConfigMaps: ours and kube-root-ca.crt.
    await waitFor(async () => (await scrape(port(), '/metrics', tokens.prometheus)).body.includes('controller_runtime_reconcile_total{controller="configmaps",result="success"} 2\n'), { what: 'the reconciles to be counted', timeoutMs: 20_000 });
    const answer = await scrape(port(), '/metrics', tokens.prometheus);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toContain('text/plain');
    expect(answer.body).toContain('workqueue_depth{name="configmaps",controller="configmaps",priority="0"} 0');
    // The reviews themselves are API requests like any other.
    expect(answer.body).toMatch(/rest_client_requests_total\{code="201",method="POST",host="127\.0\.0\.1:\d+"\} \d+/);
  });

  test('/debug/queue needs get on /debug/queue itself (metrics-reader is not enough), and is not on the probe port', async () => {
    expect((await scrape(port(), '/debug/queue')).status).toBe(401);
    const reader = await scrape(port(), '/debug/queue', tokens.prometheus);
    expect(reader.status).toBe(403);
    expect(reader.body).toContain('Forbidden: user "system:serviceaccount:monitoring:prometheus" may not get /debug/queue: grant it get on the non-resource URL /debug/queue (a ClusterRole with rules: [{nonResourceURLs: ["/debug/queue"], verbs: ["get"]}]');
    const debuggerAnswer = await scrape(port(), '/debug/queue', tokens.debugger);
    expect(debuggerAnswer.status).toBe(200);
    expect(JSON.parse(debuggerAnswer.body)).toMatchObject({ leader: true, queues: { configmaps: {} } });
    // Only /debug/queue: the debugger may not read /metrics.
    expect((await scrape(port(), '/metrics', tokens.debugger)).status).toBe(403);
    expect((await fetch(`http://127.0.0.1:${String(started.manager.ports.health)}/debug/queue`)).status).toBe(404);
  });

  test('answers are cached: repeated and concurrent scrapes with one token cost one TokenReview and one SubjectAccessReview', async () => {
    const before = await reviews();
    for (let i = 0; i < 3; i++) expect((await scrape(port(), '/metrics', tokens.cached)).status).toBe(200);
    await waitFor(async () => (await reviews()).tokenReviews === before.tokenReviews + 1, { what: 'the TokenReview in the audit log' });
    const concurrent = await reviews();
    expect((await Promise.all(Array.from({ length: 5 }, () => scrape(port(), '/metrics', tokens.crowd)))).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    await waitFor(async () => (await reviews()).tokenReviews === concurrent.tokenReviews + 1, { what: 'the concurrent scrapes\' TokenReview' });
    // Give a second review time to show up in the audit log, were there one.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await reviews()).toEqual({ tokenReviews: before.tokenReviews + 2, accessReviews: before.accessReviews + 2 });
  });
});

test('a denial is remembered only for the denied TTL: a binding made afterwards takes effect', async () => {
  const started = await startManager({ metricsAuth: { deniedTtlMs: 500 } });
  try {
    const token = await serviceAccount('monitoring', 'late');
    expect((await scrape(started.manager.ports.metrics, '/metrics', token)).status).toBe(403);
    await bindClusterRole('maintpage-operator-metrics-reader', 'monitoring', 'late');
    await waitFor(async () => (await scrape(started.manager.ports.metrics, '/metrics', token)).status === 200, { what: 'the new binding to be honoured' });
  } finally {
    started.manager.stop();
    await started.done;
  }
});

test('--metrics-secure=false: plain HTTP without authentication, and no /debug/queue', async () => {
  const started = await startManager({ metricsSecure: false });
  try {
    const metrics = await fetch(`http://127.0.0.1:${String(started.manager.ports.metrics)}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE controller_runtime_reconcile_total counter');
    const queue = await fetch(`http://127.0.0.1:${String(started.manager.ports.metrics)}/debug/queue`);
    expect({ status: queue.status, body: await queue.text() }).toEqual({ status: 404, body: '/debug/queue lists object keys and is served only with authentication (--metrics-secure=true)\n' });
  } finally {
    started.manager.stop();
    await started.done;
  }
});

test('a mounted certificate (--metrics-cert-dir) is served instead of a self-signed one; a missing key fails the start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'metrics-cert-'));
  const mounted = selfSignedCertificate({ commonName: 'maintpage-operator-controller-manager-metrics.operator-system.svc', hosts: ['127.0.0.1'] });
  await writeFile(join(dir, 'tls.crt'), mounted.cert);
  await writeFile(join(dir, 'tls.key'), mounted.key);
  const started = await startManager({ metricsCertDir: dir });
  try {
    const answer = await scrape(started.manager.ports.metrics, '/metrics', tokens.prometheus);
    expect(answer.status).toBe(200);
    expect(answer.certificate?.fingerprint256).toBe(new X509Certificate(mounted.cert).fingerprint256);
  } finally {
    started.manager.stop();
    await started.done;
  }
  const empty = await mkdtemp(join(tmpdir(), 'metrics-cert-'));
  await writeFile(join(empty, 'tls.crt'), mounted.cert);
  const broken = await Manager.create({ name: 'maintpage-operator', kubeconfig: operatorKubeconfig, namespace: NS, logger: quiet, leaderElection: { enabled: false }, healthProbeBindAddress: '0', metricsBindAddress: '127.0.0.1:0', metricsCertDir: empty });
  await expect(broken.start()).rejects.toThrow(`metrics certificate directory ${empty}: cannot read tls.key`);
  expect(broken.ports).toEqual({});
  await broken.client.close();
});

test('TokenAuthenticator with an audience accepts only tokens bound to it, as the operator that asks (RBAC: create tokenreviews)', async () => {
  const client = await KubeClient.load({ kubeconfig: operatorKubeconfig });
  try {
    const authenticator = new TokenAuthenticator(client, { audiences: ['backup-store.example'] });
    expect(await authenticator.authenticate(await tokenFor('monitoring', 'prometheus', ['backup-store.example']))).toMatchObject({ user: { username: 'system:serviceaccount:monitoring:prometheus' } });
    // A token for the API server (as every pod's default one) or for another service is no token for this one.
    expect(await authenticator.authenticate(tokens.prometheus ?? '')).toEqual({ error: expect.stringMatching(/audiences.*is invalid for the target audiences \["backup-store\.example"\]/) as unknown });
    expect(await authenticator.authenticate(await tokenFor('monitoring', 'prometheus', ['another-service']))).toHaveProperty('error');
    expect(await authenticator.authenticate('not-a-token')).toHaveProperty('error');
    // Without audiences, the API server's own: the default token passes, a token bound to a service does not.
    const plain = new TokenAuthenticator(client);
    expect(await plain.authenticate(tokens.prometheus ?? '')).toMatchObject({ user: { username: 'system:serviceaccount:monitoring:prometheus' } });
    expect(await plain.authenticate(await tokenFor('monitoring', 'prometheus', ['backup-store.example']))).toHaveProperty('error');
  } finally {
    await client.close();
  }
});
