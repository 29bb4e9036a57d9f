import type { IncomingMessage } from 'node:http';
import { expect, test } from 'vitest';
import type { KubeClient } from '../client/kube-client.ts';
import { MetricsAuthorizer } from './metrics-auth.ts';

/** An API server that accepts tokens `user-<name>` and allows only `user-reader` to get /metrics. */
function fakeApiServer(): { client: KubeClient; calls: string[]; down: { value: boolean } } {
  const calls: string[] = [];
  const down = { value: false };
  const client = {
    create: (ref: { resource: string }, body: { spec: { token?: string; user?: string; nonResourceAttributes?: { path: string } } }) => {
      calls.push(`${ref.resource} ${body.spec.token ?? body.spec.user ?? ''}`);
      if (down.value) return Promise.reject(new Error('connect ECONNREFUSED'));
      if (ref.resource === 'tokenreviews') {
        const token = body.spec.token ?? '';
        return Promise.resolve(token.startsWith('user-') ? { status: { authenticated: true, user: { username: token.slice(5), groups: ['system:authenticated'] } } } : { status: { authenticated: false, error: 'invalid bearer token' } });
      }
      return Promise.resolve({ status: { allowed: body.spec.user === 'reader' && body.spec.nonResourceAttributes?.path === '/metrics' } });
    },
  } as unknown as KubeClient;
  return { client, calls, down };
}

const request = (token: string | undefined, url = '/metrics'): IncomingMessage => ({ url, method: 'GET', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }) as IncomingMessage;

test('allowed and denied answers are cached for their TTLs; the cache is bounded, least recently used out first', async () => {
  const api = fakeApiServer();
  const auth = new MetricsAuthorizer(api.client, { readerClusterRole: 'demo-metrics-reader', maxEntries: 2, deniedTtlMs: 50 });
  expect(await auth.check(request('user-reader'))).toBeUndefined();
  expect(await auth.check(request('user-reader'))).toBeUndefined();
  expect(api.calls).toEqual(['tokenreviews user-reader', 'subjectaccessreviews reader']);
  expect(await auth.check(request('user-other'))).toMatchObject({ status: 403 });
  expect(await auth.check(request('user-other'))).toMatchObject({ status: 403 });
  expect(api.calls).toHaveLength(4);
  await new Promise((r) => setTimeout(r, 60));
  expect(await auth.check(request('user-other'))).toMatchObject({ status: 403 });
  // The token was still known (allowed TTL); the denial had expired.
  expect(api.calls.slice(4)).toEqual(['subjectaccessreviews other']);
  // A third token pushes out the least recently used one (user-reader): it is reviewed again (its user's decision,
  // a cache of its own, is still known).
  expect(await auth.check(request('bogus'))).toMatchObject({ status: 401 });
  expect(await auth.check(request('user-reader'))).toBeUndefined();
  expect(api.calls.slice(5)).toEqual(['tokenreviews bogus', 'tokenreviews user-reader']);
});

test('an unreachable API server is a 500, and not remembered', async () => {
  const api = fakeApiServer();
  const auth = new MetricsAuthorizer(api.client, { readerClusterRole: 'demo-metrics-reader' });
  api.down.value = true;
  expect(await auth.check(request('user-reader'))).toEqual({ status: 500, body: 'Internal Server Error: could not check the caller\'s access with the API server: connect ECONNREFUSED\n' });
  api.down.value = false;
  expect(await auth.check(request('user-reader'))).toBeUndefined();
});

test('a user that is not a ServiceAccount is told to bind the role with --user', async () => {
  const api = fakeApiServer();
  const auth = new MetricsAuthorizer(api.client, { readerClusterRole: 'demo-metrics-reader' });
  expect(await auth.check(request('user-jane'))).toEqual({
    status: 403,
    body: 'Forbidden: user "jane" may not get /metrics: bind the ClusterRole demo-metrics-reader (kubectl create clusterrolebinding <name> --clusterrole=demo-metrics-reader --user=jane)\n',
  });
  expect(await auth.check(request(undefined))).toMatchObject({ status: 401 });
  expect(await auth.check({ url: '/metrics', method: 'GET', headers: { authorization: 'Basic dXNlcjpwdw==' } } as IncomingMessage)).toMatchObject({ status: 401 });
});
