import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { PrismApiKey, PrismCredentials, type PrismAuthentication } from '../config/prism-credentials.ts';
import { PrismAuthenticationError } from './prism-errors.ts';
import { PrismHttp, type PrismCall } from './prism-http.ts';

/** Shaped like a Prism Central service account's API key; made up. */
const API_KEY = 'ntnx-sa-7Hq2vXk9TzLw4pRm8sYc3bNe6fJd5gUa';

/**
 * A server that records each request's headers and answers `status` (200 with a body, else Prism's non-JSON 401),
 * always setting a session cookie, as Prism Central does after a login.
 */
async function recordingServer(status = 200): Promise<{ url: string; seen: IncomingHttpHeaders[]; paths: string[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    paths.push(req.url ?? '');
    req.resume();
    res.setHeader('set-cookie', ['NTNX_IGW_SESSION=s3ss10n; Path=/; HttpOnly', 'JSESSIONID=s3ss10n; Path=/; HttpOnly']);
    if (status === 200) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    else res.writeHead(status, { 'content-type': 'text/plain' }).end('Authentication required.\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, paths, server };
}

const servers: Server[] = [];
const clients: PrismHttp[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function setUp(credentials: PrismAuthentication, status = 200) {
  const recorded = await recordingServer(status);
  servers.push(recorded.server);
  const http = new PrismHttp({ origin: recorded.url, credentials, tls: { insecureSkipVerify: false } });
  clients.push(http);
  return { http, ...recorded };
}

const V3_LIST: PrismCall = { method: 'POST', path: '/vms/list', endpoint: '/vms/list', body: {}, repeatability: 'repeatable' };
const V4_LIST: PrismCall = { method: 'GET', path: '/vms?$limit=1', basePath: '/api/vmm/v4.2/ahv/config', endpoint: '/vms', repeatability: 'repeatable' };

// prism-go-client v0.8.1 (1e253ea) internal/client.go decorateRequestWithAuthHeaders: `req.Header.Add("X-ntnx-api-key",
// apiKey)` when Credentials.APIKey is set, else Basic; v4/v4.go setAuthHeader adds the same default header to every
// request of the v4 client. The v4 SDK (vmm-go-client v4.2.1 client/api_client.go prepareRequest) keeps sending the key
// when it holds a cookie; it deletes only Authorization.
describe('PrismHttp authentication headers', () => {
  it('sends an API key as X-ntnx-api-key on every request, v3 and v4, with no Authorization and no cookie', async () => {
    const { http, seen, paths } = await setUp(new PrismApiKey(API_KEY));
    for (const call of [V3_LIST, V4_LIST, V3_LIST, V4_LIST]) await http.send(call);
    expect(paths).toEqual(['/api/nutanix/v3/vms/list', '/api/vmm/v4.2/ahv/config/vms?$limit=1', '/api/nutanix/v3/vms/list', '/api/vmm/v4.2/ahv/config/vms?$limit=1']);
    for (const headers of seen) {
      expect(headers['x-ntnx-api-key']).toBe(API_KEY);
      expect(headers.authorization).toBeUndefined();
      // The server set session cookies on every answer; a key needs none, so none goes back.
      expect(headers.cookie).toBeUndefined();
    }
  });

  it('sends Basic credentials once, then only the session cookie (no key header)', async () => {
    const { http, seen } = await setUp(new PrismCredentials('ops', 'pw'));
    for (const call of [V3_LIST, V4_LIST, V3_LIST]) await http.send(call);
    expect(seen.map((headers) => [headers.authorization, headers.cookie, headers['x-ntnx-api-key']])).toEqual([
      [`Basic ${Buffer.from('ops:pw').toString('base64')}`, undefined, undefined],
      [undefined, 'NTNX_IGW_SESSION=s3ss10n; JSESSIONID=s3ss10n', undefined],
      [undefined, 'NTNX_IGW_SESSION=s3ss10n; JSESSIONID=s3ss10n', undefined],
    ]);
  });

  it('takes a refused key as final after one request, and names it without showing it', async () => {
    const { http, seen } = await setUp(new PrismApiKey(API_KEY), 401);
    const failure = http.send(V4_LIST);
    await expect(failure).rejects.toBeInstanceOf(PrismAuthenticationError);
    const error = (await failure.catch((caught: unknown) => caught)) as PrismAuthenticationError;
    expect(error.message).toBe('GET /vms?$limit=1: Prism Central refused the API key in PRISM_API_KEY (HTTP 401)');
    expect(error.conditionReason).toBe('AuthenticationFailed');
    expect(seen).toHaveLength(1);
    for (const shown of [error.message, error.stack ?? '', inspect(error, { depth: 10 }), JSON.stringify(error)]) expect(shown).not.toContain(API_KEY);
  });
});
