import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { waitFor } from '@k8s-operators/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTooManyRequests,
} from '../src/client/errors.ts';
import { KubeClient } from '../src/client/kube-client.ts';
import { loadClusterAuth } from '../src/client/kubeconfig/load-cluster-auth.ts';
import { defineResource, Resources } from '../src/client/resources.ts';
import type { RestClientMetricsSink } from '../src/client/rest-metrics.ts';
import { retryOnConflict } from '../src/client/retry.ts';
import { apiDidNotAnswer, untilApiAnswers } from '../src/manager/until-api-answers.ts';
import {
  createNamespace,
  installWidgetCrd,
  startTestCluster,
  WidgetResource,
  type TestCluster,
} from './client-test-cluster.ts';

type Observation = Parameters<RestClientMetricsSink['observeRequest']>[0];
type RetryObservation = Parameters<RestClientMetricsSink['observeRetry']>[0];

function recordingSink(): RestClientMetricsSink & { requests: Observation[]; retries: RetryObservation[] } {
  const requests: Observation[] = [];
  const retries: RetryObservation[] = [];
  return {
    requests,
    retries,
    observeRequest: (info) => requests.push(info),
    observeRetry: (info) => retries.push(info),
  };
}

const metrics = recordingSink();
let cluster: TestCluster;
let client: KubeClient;

beforeAll(async () => {
  cluster = await startTestCluster({ metrics });
  client = cluster.client;
  await createNamespace(client, 'crud');
  await installWidgetCrd(client);
});

afterAll(async () => {
  await cluster.stop();
});

describe('KubeClient verbs', () => {
  it('creates, reads, updates, patches and deletes a ConfigMap', async () => {
    const created = await client.create(Resources.ConfigMap, { metadata: { name: 'settings', namespace: 'crud' }, data: { a: '1' } });
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.kind).toBe('ConfigMap');

    const read = await client.get(Resources.ConfigMap, { namespace: 'crud', name: 'settings' });
    expect(read?.data).toEqual({ a: '1' });

    const updated = await client.update(Resources.ConfigMap, { ...read, data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });

    const merged = await client.patch(Resources.ConfigMap, { namespace: 'crud', name: 'settings' }, { type: 'merge', patch: { data: { b: 'x' } } });
    expect(merged.data).toEqual({ a: '2', b: 'x' });
    const strategic = await client.patch(
      Resources.ConfigMap,
      { namespace: 'crud', name: 'settings' },
      { type: 'strategic', patch: { metadata: { labels: { tier: 'web' } } } },
    );
    expect(strategic.metadata?.labels).toEqual({ tier: 'web' });
    const jsonPatched = await client.patch(
      Resources.ConfigMap,
      { namespace: 'crud', name: 'settings' },
      { type: 'json', patch: [{ op: 'remove', path: '/data/b' }] },
    );
    expect(jsonPatched.data).toEqual({ a: '2' });

    expect(await client.delete(Resources.ConfigMap, { namespace: 'crud', name: 'settings' })).toBe(true);
    expect(await client.get(Resources.ConfigMap, { namespace: 'crud', name: 'settings' })).toBeUndefined();
    // Already gone: a 404 counts as deleted.
    expect(await client.delete(Resources.ConfigMap, { namespace: 'crud', name: 'settings' })).toBe(false);
  });

  it('applies a custom resource server-side and writes its status subresource', async () => {
    const key = { namespace: 'crud', name: 'w1' };
    const applied = await client.apply(WidgetResource, { metadata: key, spec: { size: 1, color: 'red' } }, { fieldManager: 'alice' });
    expect(applied.spec).toEqual({ size: 1, color: 'red' });
    expect(applied.metadata?.generation).toBe(1);
    expect(applied.metadata?.managedFields?.map((entry) => entry.manager)).toEqual(['alice']);

    // A second manager setting a field alice owns conflicts, unless it forces.
    const takeOver = { metadata: key, spec: { size: 5 } };
    const conflict = await client.apply(WidgetResource, takeOver, { fieldManager: 'bob' }).catch((error: unknown) => error);
    expect(isConflict(conflict)).toBe(true);
    const forced = await client.apply(WidgetResource, takeOver, { fieldManager: 'bob', force: true });
    expect(forced.spec).toEqual({ size: 5, color: 'red' });
    expect(forced.metadata?.generation).toBe(2);

    // The status subresource changes status only, and leaves the generation alone.
    const withStatus = await client.updateStatus(WidgetResource, { ...forced, spec: { size: 99 }, status: { phase: 'Pending' } });
    expect(withStatus.status).toEqual({ phase: 'Pending' });
    expect(withStatus.spec?.size).toBe(5);
    expect(withStatus.metadata?.generation).toBe(2);

    const patched = await client.patchStatus(WidgetResource, key, { type: 'merge', patch: { status: { observedGeneration: 2 } } });
    expect(patched.status).toEqual({ phase: 'Pending', observedGeneration: 2 });

    const statusApplied = await client.applyStatus(
      WidgetResource,
      { metadata: key, status: { phase: 'Ready', observedGeneration: 2 } },
      { fieldManager: 'widget-controller', force: true },
    );
    expect(statusApplied.status).toEqual({ phase: 'Ready', observedGeneration: 2 });
    expect(statusApplied.metadata?.generation).toBe(2);

    expect(await client.delete(WidgetResource, key, { propagationPolicy: 'Foreground' })).toBe(true);
  });

  it('reads more than 500 objects page by page (limit/continue), with selectors', async () => {
    await createNamespace(client, 'paging');
    const names = Array.from({ length: 1_200 }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
    const pool = [...names];
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        for (let name = pool.pop(); name !== undefined; name = pool.pop()) {
          const parity = Number(name.slice(3)) % 2 === 0 ? 'even' : 'odd';
          await client.create(Resources.ConfigMap, { metadata: { name, namespace: 'paging', labels: { parity } } });
        }
      }),
    );

    const listsBefore = client.requestCounts().list;
    const all = await client.list(Resources.ConfigMap, { namespace: 'paging', labelSelector: 'parity' });
    // 1,200 objects at the default 500 per page: three requests, one snapshot.
    expect(client.requestCounts().list - listsBefore).toBe(3);
    expect(all.items.map((item) => item.metadata?.name).sort()).toEqual(names);
    expect(Number(all.resourceVersion)).toBeGreaterThan(0);
    // List items come without apiVersion/kind from the server; the client fills them in.
    expect(all.items.every((item) => item.apiVersion === 'v1' && item.kind === 'ConfigMap')).toBe(true);

    const even = await client.list(Resources.ConfigMap, { namespace: 'paging', labelSelector: 'parity=even', pageSize: 250 });
    expect(even.items).toHaveLength(600);
    const byField = await client.list(Resources.ConfigMap, { namespace: 'paging', fieldSelector: 'metadata.name=cm-0007' });
    expect(byField.items.map((item) => item.metadata?.name)).toEqual(['cm-0007']);

    const unpaged = client.requestCounts().list;
    expect((await client.list(Resources.ConfigMap, { namespace: 'paging', pageSize: 0 })).items.length).toBeGreaterThanOrEqual(1_200);
    expect(client.requestCounts().list - unpaged).toBe(1);
  });

  it('deletes with preconditions: a different UID is a conflict and the object stays', async () => {
    const cm = await client.create(Resources.ConfigMap, { metadata: { name: 'guarded', namespace: 'crud' } });
    const wrongUid = await client
      .delete(Resources.ConfigMap, { namespace: 'crud', name: 'guarded' }, { preconditions: { uid: 'not-its-uid' } })
      .catch((error: unknown) => error);
    expect(isConflict(wrongUid)).toBe(true);
    expect(await client.get(Resources.ConfigMap, { namespace: 'crud', name: 'guarded' })).toBeDefined();
    const deleted = await client.delete(
      Resources.ConfigMap,
      { namespace: 'crud', name: 'guarded' },
      { preconditions: { uid: cm.metadata?.uid ?? '' }, gracePeriodSeconds: 0, propagationPolicy: 'Background' },
    );
    expect(deleted).toBe(true);
  });

  it('authenticates with a bearer token from the kubeconfig', async () => {
    await client.raw('POST', '/api/v1/namespaces/crud/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
    const { status } = await client.raw<{ status: { token: string } }>('POST', '/api/v1/namespaces/crud/serviceaccounts/reader/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    });
    const reader = await KubeClient.load({ kubeconfig: await cluster.kubeconfigWith({ token: status.token }) });
    try {
      // Authenticated as the ServiceAccount (which RBAC lets read nothing), not as the admin and not anonymously.
      const denied = await reader.list(Resources.ConfigMap, { namespace: 'crud' }).catch((error: unknown) => error);
      expect(isForbidden(denied)).toBe(true);
      expect((denied as ApiError).message).toContain('system:serviceaccount:crud:reader');
    } finally {
      await reader.close();
    }
  });

  it('reaches subresources with raw requests', async () => {
    const tokenRequest = await client.raw<{ status: { token: string } }>(
      'POST',
      '/api/v1/namespaces/default/serviceaccounts/default/token',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
    );
    expect(tokenRequest.status.token.split('.')).toHaveLength(3);
    expect(client.requestCounts().raw).toBeGreaterThan(0);
  });
});

describe('KubeClient errors', () => {
  it('maps 404, 409 (AlreadyExists and Conflict), 422 and 403 to typed errors', async () => {
    const missing = await client.raw('GET', '/api/v1/namespaces/crud/configmaps/nope').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect(isNotFound(missing)).toBe(true);
    expect((missing as ApiError).status).toBe(404);

    const first = await client.create(Resources.ConfigMap, { metadata: { name: 'twice', namespace: 'crud' }, data: { v: '1' } });
    const duplicate = await client.create(Resources.ConfigMap, { metadata: { name: 'twice', namespace: 'crud' } }).catch((error: unknown) => error);
    expect(isAlreadyExists(duplicate)).toBe(true);
    expect(isConflict(duplicate)).toBe(false);

    await client.update(Resources.ConfigMap, { ...first, data: { v: '2' } });
    const stale = await client.update(Resources.ConfigMap, { ...first, data: { v: '3' } }).catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    expect((stale as ApiError).reason).toBe('Conflict');

    const invalid = await client.create(Resources.ConfigMap, { metadata: { name: 'Not_A_Name', namespace: 'crud' } }).catch((error: unknown) => error);
    expect(isInvalid(invalid)).toBe(true);
    expect((invalid as ApiError).details?.causes?.[0]?.field).toBe('metadata.name');

    const nobody = await KubeClient.load({ kubeconfig: await cluster.kubeconfigWith({ impersonate: 'nobody' }) });
    try {
      const forbidden = await nobody.list(Resources.Secret, { namespace: 'crud' }).catch((error: unknown) => error);
      expect(isForbidden(forbidden)).toBe(true);
      expect((forbidden as ApiError).message).toContain('nobody');
    } finally {
      await nobody.close();
    }
  });

  it('tells an absent object from a resource the server does not serve', async () => {
    expect(await client.get(Resources.ConfigMap, { namespace: 'no-such-namespace', name: 'x' })).toBeUndefined();
    expect(await client.delete(Resources.ConfigMap, { namespace: 'no-such-namespace', name: 'x' })).toBe(false);
    // A resource that is not served (its CRD is not installed) is not an absent object: get and delete throw instead
    // of answering "not there". The API server says so with a Status for a known group, in plain text for an unknown one.
    const unknownResource = defineResource({ group: 'apps', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true });
    const unknownGroup = defineResource({ group: 'nope.example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true });
    for (const unserved of [unknownResource, unknownGroup]) {
      const getError = await client.get(unserved, { namespace: 'crud', name: 'x' }).catch((error: unknown) => error);
      expect(isNotFound(getError)).toBe(true);
      const deleteError = await client.delete(unserved, { namespace: 'crud', name: 'x' }).catch((error: unknown) => error);
      expect(isNotFound(deleteError)).toBe(true);
    }
  });

  it('retryOnConflict re-reads and retries after a 409', async () => {
    await client.create(Resources.ConfigMap, { metadata: { name: 'counter', namespace: 'crud' }, data: { n: '0' } });
    const key = { namespace: 'crud', name: 'counter' };
    // Eight writers increment the same counter at once; each conflict is retried with a fresh read.
    let attempts = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        retryOnConflict(
          async () => {
            attempts++;
            const current = await client.get(Resources.ConfigMap, key);
            if (current === undefined) throw new Error('counter vanished');
            return client.update(Resources.ConfigMap, { ...current, data: { n: String(Number(current.data?.n) + 1) } });
          },
          { attempts: 50 },
        ),
      ),
    );
    expect((await client.get(Resources.ConfigMap, key))?.data?.n).toBe('8');
    expect(attempts).toBeGreaterThanOrEqual(8);

    // A conflict that persists is thrown once the attempts are spent; other errors are not retried at all.
    const stale = await client.get(Resources.ConfigMap, key);
    if (stale === undefined) throw new Error('counter vanished');
    await client.update(Resources.ConfigMap, { ...stale, data: { n: 'moved on' } });
    let staleAttempts = 0;
    const exhausted = await retryOnConflict(
      () => {
        staleAttempts++;
        return client.update(Resources.ConfigMap, stale);
      },
      { attempts: 3 },
    ).catch((error: unknown) => error);
    expect(isConflict(exhausted)).toBe(true);
    expect(staleAttempts).toBe(3);
    let notFoundAttempts = 0;
    const other = await retryOnConflict(() => {
      notFoundAttempts++;
      return client.raw('GET', '/api/v1/namespaces/crud/configmaps/absent');
    }).catch((error: unknown) => error);
    expect(isNotFound(other)).toBe(true);
    expect(notFoundAttempts).toBe(1);
  });

  it('maps an expired continue token (410) to isGone', async () => {
    await createNamespace(client, 'expiry');
    for (let i = 0; i < 3; i++) await client.create(Resources.ConfigMap, { metadata: { name: `e${i}`, namespace: 'expiry' } });
    const firstPage = await client.raw<{ metadata: { continue: string } }>('GET', '/api/v1/namespaces/expiry/configmaps?limit=1');
    await client.create(Resources.ConfigMap, { metadata: { name: 'later', namespace: 'expiry' } });
    await cluster.controlPlane.compactEtcd();
    // The restarted API server has no snapshot of the old version left; etcd has compacted it away.
    await cluster.controlPlane.restartApiServer();
    const expired = await client
      .raw('GET', `/api/v1/namespaces/expiry/configmaps?limit=1&continue=${encodeURIComponent(firstPage.metadata.continue)}`)
      .catch((error: unknown) => error);
    expect(isGone(expired)).toBe(true);
    expect((expired as ApiError).status).toBe(410);
    expect((expired as ApiError).reason).toBe('Expired');
  });
});

describe('KubeClient resilience and metrics', () => {
  it('reports every request to the metrics sink with client-go label values', async () => {
    const before = metrics.requests.length;
    await client.get(Resources.ConfigMap, { namespace: 'crud', name: 'absent' });
    const observed = metrics.requests.slice(before);
    expect(observed).toHaveLength(1);
    expect(observed[0]).toMatchObject({ verb: 'get', method: 'GET', code: '404', host: new URL(cluster.controlPlane.url).host });
    expect(observed[0]?.durationSeconds).toBeGreaterThan(0);
  });

  it('honours Retry-After on 429 and 5xx, never re-sends a POST after a 5xx, and gives up after a few retries', async () => {
    const proxy = await FaultProxy.start(cluster);
    const sink = recordingSink();
    const proxied = await KubeClient.load({ kubeconfig: await cluster.kubeconfigWith({ server: proxy.url }), metrics: sink });
    try {
      // Two 429s with Retry-After: 1, then the real server answers.
      proxy.failNext(2, { status: 429, retryAfterSeconds: 1 });
      const started = Date.now();
      const created = await proxied.create(Resources.ConfigMap, { metadata: { name: 'after-429', namespace: 'crud' } });
      expect(created.metadata?.uid).toBeTruthy();
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(proxy.requests.filter((line) => line === 'POST /api/v1/namespaces/crud/configmaps')).toHaveLength(3);
      expect(sink.retries.map((retry) => [retry.verb, retry.method, retry.code])).toEqual([
        ['create', 'POST', '429'],
        ['create', 'POST', '429'],
      ]);

      // A 503 to a GET is retried; to a POST it is not (the server may have acted on it).
      proxy.failNext(1, { status: 503, retryAfterSeconds: 0 });
      expect((await proxied.get(Resources.ConfigMap, { namespace: 'crud', name: 'after-429' }))?.metadata?.uid).toBe(created.metadata?.uid);
      proxy.failNext(1, { status: 503, retryAfterSeconds: 0 });
      const postsBefore = proxy.requests.length;
      const unavailable = await proxied.create(Resources.ConfigMap, { metadata: { name: 'after-503', namespace: 'crud' } }).catch((error: unknown) => error);
      expect((unavailable as ApiError).status).toBe(503);
      expect((unavailable as ApiError).retryAfterSeconds).toBe(0);
      expect(proxy.requests.length - postsBefore).toBe(1);

      // Endless 429s: the first attempt and four retries, then the error.
      proxy.failNext(100, { status: 429, retryAfterSeconds: 0 });
      const requestsBefore = proxy.requests.length;
      const throttled = await proxied.get(Resources.ConfigMap, { namespace: 'crud', name: 'after-429' }).catch((error: unknown) => error);
      expect(isTooManyRequests(throttled)).toBe(true);
      expect((throttled as ApiError).retryAfterSeconds).toBe(0);
      expect(proxy.requests.length - requestsBefore).toBe(5);
    } finally {
      await proxied.close();
      await proxy.stop();
    }
  });
});

describe('untilApiAnswers', () => {
  // An operator started with its whole cluster (the postgresql-operator reads its own Pod and keeps a Secret before its
  // controllers start) waits for the API server, as the informers do, rather than exiting into CrashLoopBackOff.
  it('tries a call again while the API server is down, saying so, and returns its answer once it is back', async () => {
    await client.create(Resources.ConfigMap, { metadata: { name: 'read-at-start', namespace: 'crud' }, data: { v: '1' } });
    const lines: { msg: string; attempt: number; retryInMs: number; error: string }[] = [];
    const logger = pino({}, { write: (line: string) => lines.push(JSON.parse(line) as (typeof lines)[number]) });
    await cluster.controlPlane.stopApiServer();
    let read: Promise<unknown> | undefined;
    try {
      read = untilApiAnswers('reading a ConfigMap', () => client.get(Resources.ConfigMap, { namespace: 'crud', name: 'read-at-start' }), { logger, backoff: { initialMs: 200, maxMs: 1_000 } });
      await waitFor(() => lines.length >= 2, { what: 'two attempts to have failed', timeoutMs: 30_000 });
    } finally {
      await cluster.controlPlane.startApiServer();
    }
    expect(((await read) as { data?: Record<string, string> }).data).toEqual({ v: '1' });
    expect(lines[0]).toMatchObject({ msg: 'reading a ConfigMap: the API server did not answer; trying again', attempt: 1, error: expect.stringContaining('ECONNREFUSED') as unknown });
    expect(lines.map((line) => line.attempt)).toEqual(lines.map((_, i) => i + 1));
  });

  it('throws an answer of the API server at once: waiting does not change a 409 or a 403', async () => {
    const lines: string[] = [];
    const logger = pino({}, { write: (line: string) => lines.push(line) });
    const existing = { metadata: { name: 'read-at-start', namespace: 'crud' } };
    await expect(untilApiAnswers('creating a ConfigMap', () => client.create(Resources.ConfigMap, existing), { logger })).rejects.toSatisfy(isAlreadyExists);
    expect(lines).toEqual([]);
    expect(apiDidNotAnswer(new ApiError({ status: 403, body: {}, request: 'GET /api/v1/secrets' }))).toBe(false);
    expect(apiDidNotAnswer(new ApiError({ status: 429, body: {}, request: 'GET /api/v1/secrets' }))).toBe(true);
    expect(apiDidNotAnswer(new ApiError({ status: 503, body: {}, request: 'GET /api/v1/secrets' }))).toBe(true);
  });
});

/**
 * A reverse proxy in front of the real API server that answers the next requests with an error status, as API
 * Priority & Fairness (429) or an overloaded server (503) would, and forwards everything else. It serves the cluster's
 * own serving certificate, so clients verify it with the kubeconfig's CA as they would the API server.
 */
class FaultProxy {
  readonly url: string;
  readonly requests: string[] = [];
  readonly #server: Server;
  readonly #upstream: Agent;
  #faults: { remaining: number; status: number; retryAfterSeconds: number } = { remaining: 0, status: 0, retryAfterSeconds: 0 };

  private constructor(server: Server, upstream: Agent, url: string) {
    this.#server = server;
    this.#upstream = upstream;
    this.url = url;
  }

  static async start(cluster: TestCluster): Promise<FaultProxy> {
    const { tls } = await loadClusterAuth({ kubeconfig: cluster.kubeconfig });
    const upstream = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key } });
    const pki = cluster.controlPlane.pki;
    const [serverCert, serverKey] = await Promise.all([readFile(pki.serverCert), readFile(pki.serverKey)]);
    const proxyRef: { current?: FaultProxy } = {};
    const server = createServer({ cert: serverCert, key: serverKey }, (req, res) => {
      void (async () => {
        const proxy = proxyRef.current;
        if (proxy === undefined) throw new Error('proxy not ready');
        proxy.requests.push(`${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const faults = proxy.#faults;
        if (faults.remaining > 0) {
          faults.remaining--;
          res.writeHead(faults.status, { 'content-type': 'application/json', 'retry-after': String(faults.retryAfterSeconds) });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: faults.status, message: 'injected by the test proxy' }));
          return;
        }
        const answer = await request(`${cluster.controlPlane.url}${req.url ?? ''}`, {
          method: (req.method ?? 'GET') as 'GET',
          dispatcher: upstream,
          headers: { accept: 'application/json', ...(req.headers['content-type'] === undefined ? {} : { 'content-type': req.headers['content-type'] }) },
          body: chunks.length === 0 ? null : Buffer.concat(chunks),
        });
        res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        res.end(Buffer.from(await answer.body.arrayBuffer()));
      })().catch((error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxyRef.current = new FaultProxy(server, upstream, `https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxyRef.current;
  }

  /** The next `count` requests get `status` with a `Retry-After` header. */
  failNext(count: number, fault: { status: number; retryAfterSeconds: number }): void {
    this.#faults = { remaining: count, ...fault };
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => { resolve(); }));
    await this.#upstream.close();
  }
}

