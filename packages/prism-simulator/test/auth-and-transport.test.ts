import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRISM_BASE_PATH, PRISM_TASKS_PATH, VMM_VMS_PATH, type PrismSimulator } from '../src/index.ts';
import { PrismTestClient, firstMessage, pollUntilTaskEnds, readReply, startFastSimulator, type AcceptedJson, type ErrorJson, type Reply, type TaskJson } from './prism-client.ts';
import { v4VmBody, type V4VmJson } from './v4-client.ts';

/** POST /vms/list over HTTPS with node:https, which verifies the server against `ca` (or the system roots). */
function httpsList(simulator: PrismSimulator, ca: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${simulator.url}/api/nutanix/v3/vms/list`, {
      method: 'POST',
      auth: `${simulator.username}:${simulator.password}`,
      headers: { 'content-type': 'application/json' },
      ...(ca === undefined ? {} : { ca }),
    }, (res) => {
      res.resume();
      res.on('end', () => { resolve(res.statusCode ?? 0); });
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('authentication', () => {
  const clock = { now: Date.UTC(2025, 5, 7, 18, 23, 52) };
  let simulator: PrismSimulator;

  beforeAll(async () => {
    simulator = await startFastSimulator({ username: 'ops', password: 's3cret', now: () => clock.now });
  });
  afterAll(() => simulator.stop());

  it('answers bad or missing credentials with a 401 whose body is not JSON', async () => {
    for (const client of [new PrismTestClient(simulator, { username: 'ops', password: 'wrong' }), new PrismTestClient(simulator, 'none')]) {
      const reply = await client.request('POST', '/vms/list', {});
      expect(reply.status).toBe(401);
      expect(reply.json).toBeUndefined();
      expect(reply.headers.get('content-type')).not.toMatch(/json/);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Basic /);
    }
  });

  it('sets 15-minute session cookies on the first Basic call and accepts them alone afterwards', async () => {
    const basic = new PrismTestClient(simulator);
    const first = await basic.request('POST', '/vms/list', {});
    expect(first.status).toBe(200);
    const cookies = first.headers.getSetCookie();
    expect(cookies.map((c) => c.split('=')[0])).toEqual(['NTNX_IGW_SESSION', 'JSESSIONID']);
    expect(cookies[0]).toContain(`Expires=${new Date(clock.now + 15 * 60_000).toUTCString()}`);
    expect(cookies[0]).toMatch(/HttpOnly/);
    const session = cookies[0]?.split(';')[0] ?? '';

    const cookieOnly = new PrismTestClient(simulator, 'none');
    const second = await cookieOnly.request('POST', '/vms/list', {}, { cookie: session });
    expect(second.status).toBe(200);
    expect(second.headers.getSetCookie()).toEqual([]);

    clock.now += 15 * 60_000;
    const expired = await cookieOnly.request('POST', '/vms/list', {}, { cookie: session });
    expect(expired.status).toBe(401);
    expect(expired.json).toBeUndefined();

    const again = await basic.request('POST', '/vms/list', {}, { cookie: session });
    expect(again.status).toBe(200);
    expect(again.headers.getSetCookie()).toHaveLength(2);
  });

  it('sends the headers of a real Prism Central', async () => {
    const reply = await new PrismTestClient(simulator).request('POST', '/vms/list', {});
    expect(reply.headers.get('server')).toBe('envoy');
    expect(reply.headers.get('x-ntnx-env')).toBe('pc');
    expect(reply.headers.get('x-ntnx-product')).toMatch(/^pc\./);
    expect(reply.headers.get('content-type')).toBe('application/json');
  });

  it('answers malformed JSON with 400 INVALID_REQUEST and unknown paths with a JSON 404', async () => {
    const client = new PrismTestClient(simulator);
    const malformed = await client.request('POST', '/vms', '{"spec":');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ api_version: '3.1', code: 400, kind: 'vm', state: 'ERROR' });
    expect(firstMessage(malformed).reason).toBe('INVALID_REQUEST');

    const unknown = await client.request('GET', '/hosts/list');
    expect(unknown.status).toBe(404);
    expect((unknown.json as ErrorJson).state).toBe('ERROR');
  });

  it('serves GET /users/me, which prism-go-client uses to start a session', async () => {
    const reply = await new PrismTestClient(simulator).request('GET', '/users/me');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ metadata: { kind: 'user' }, status: { name: 'ops' } });
  });
});

/** Shaped like a Prism Central service account's API key; made up. */
const API_KEY = 'ntnx-sa-7Hq2vXk9TzLw4pRm8sYc3bNe6fJd5gUa';

/** A request with exactly `headers` for credentials: no Basic unless given. `path` is the full path. */
async function send(simulator: PrismSimulator, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  return readReply(await fetch(`${simulator.url}${path}`, {
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }));
}

/** The parts of a 401 a client can tell apart. */
function shapeOf(reply: Reply): unknown {
  return { status: reply.status, text: reply.text, json: reply.json, contentType: reply.headers.get('content-type'), challenge: reply.headers.get('www-authenticate') };
}

// prism-go-client v0.8.1 (1e253ea) internal/client.go decorateRequestWithAuthHeaders and v4/v4.go setAuthHeader send a
// service account's API key as the header `X-ntnx-api-key` (ntnxAPIKeyHeaderKey) in place of Basic credentials, on v3
// and v4; CAPX 946f0db (#745, templates/overlays/base/api-key) passes it from a Secret whose credentials JSON is
// `[{"type":"api_key","data":{"prismCentral":{"apiKey":"…"}}}]`.
describe('API keys', () => {
  let simulator: PrismSimulator;

  beforeAll(async () => {
    // A Prism Central only the service account's key gets into.
    simulator = await startFastSimulator({ basicAuth: false, apiKeys: [API_KEY] });
  });
  afterAll(() => simulator.stop());

  const key = { 'x-ntnx-api-key': API_KEY };

  it('creates a VM through v3 and reads it through v4 with the key alone', async () => {
    const created = await send(simulator, 'POST', `${PRISM_BASE_PATH}/vms`, key, { metadata: { kind: 'vm' }, spec: { name: 'by-key', resources: {} } });
    expect(created.status).toBe(202);
    const accepted = created.json as AcceptedJson;
    const task = await pollUntilTaskEnds(accepted.status.execution_context.task_uuid, async (id) => (await send(simulator, 'GET', `${PRISM_BASE_PATH}/tasks/${id}`, key)).json as TaskJson, 5_000);
    expect(task.status).toBe('SUCCEEDED');
    const read = await send(simulator, 'GET', `${VMM_VMS_PATH}/${accepted.metadata.uuid}`, key);
    expect(read.status).toBe(200);
    expect((read.json as { data: V4VmJson }).data.name).toBe('by-key');
  });

  it('creates a VM through v4 with the key alone', async () => {
    const created = await send(simulator, 'POST', VMM_VMS_PATH, { ...key, 'ntnx-request-id': randomUUID() }, v4VmBody(simulator, 'by-key-v4'));
    expect(created.status).toBe(202);
    const taskExtId = (created.json as { data: { extId: string } }).data.extId;
    const task = await pollUntilTaskEnds(taskExtId, async (id) => ((await send(simulator, 'GET', `${PRISM_TASKS_PATH}/${id}`, key)).json as { data: { status: string } }).data, 5_000);
    expect(task.status).toBe('SUCCEEDED');
    expect(simulator.inspect().vms.filter((vm) => vm.name === 'by-key-v4')).toHaveLength(1);
  });

  it('refuses a wrong key on v3 and v4 with the same non-JSON 401 as wrong Basic credentials', async () => {
    const basicOnly = await startFastSimulator({ username: 'ops', password: 's3cret' });
    try {
      const wrongBasic = await send(basicOnly, 'POST', `${PRISM_BASE_PATH}/vms/list`, { authorization: `Basic ${Buffer.from('ops:wrong').toString('base64')}` }, {});
      expect(wrongBasic.status).toBe(401);
      for (const [method, path] of [['POST', `${PRISM_BASE_PATH}/vms/list`], ['GET', VMM_VMS_PATH], ['GET', `${PRISM_BASE_PATH}/users/me`]] as const) {
        for (const wrong of [`${API_KEY}0`, API_KEY.slice(0, -1), 'ntnx-sa-wrong']) {
          const refused = await send(simulator, method, path, { 'x-ntnx-api-key': wrong }, method === 'POST' ? {} : undefined);
          expect(shapeOf(refused), `${method} ${path}`).toEqual(shapeOf(wrongBasic));
        }
      }
    } finally {
      await basicOnly.stop();
    }
  });

  it('refuses Basic credentials when basicAuth is false, even the right ones', async () => {
    const basic = `Basic ${Buffer.from(`${simulator.username}:${simulator.password}`).toString('base64')}`;
    expect((await send(simulator, 'POST', `${PRISM_BASE_PATH}/vms/list`, { authorization: basic }, {})).status).toBe(401);
    expect((await send(simulator, 'GET', VMM_VMS_PATH, { authorization: basic })).status).toBe(401);
    expect(simulator).toMatchObject({ basicAuth: false, apiKeys: [API_KEY] });
  });

  it("answers the key's first request with session cookies, so prism-go-client's v3 session mode works on a key", async () => {
    // v3.NewV3Client with SessionAuth (CAPX's cache) logs in with GET /users/me and then sends the cookies alone.
    const me = await send(simulator, 'GET', `${PRISM_BASE_PATH}/users/me`, key);
    expect(me.status).toBe(200);
    const cookie = me.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^NTNX_IGW_SESSION=/);
    expect((await send(simulator, 'POST', `${PRISM_BASE_PATH}/vms/list`, { cookie }, {})).status).toBe(200);
    expect((await send(simulator, 'GET', VMM_VMS_PATH, { cookie })).status).toBe(200);
  });

  it('logs what let each request in', async () => {
    const before = simulator.requestLog().length;
    await send(simulator, 'GET', VMM_VMS_PATH, key);
    await send(simulator, 'GET', VMM_VMS_PATH, { 'x-ntnx-api-key': 'wrong' });
    expect(simulator.requestLog().slice(before).map((entry) => [entry.outcome, entry.authenticatedBy])).toEqual([[200, 'api-key'], [401, undefined]]);
  });

  it('refuses to start with a key no header can carry, or with nobody able to log in, without printing the key', async () => {
    await expect(startFastSimulator({ apiKeys: ['has a space'] })).rejects.toThrow('apiKeys[0] must be visible ASCII without spaces');
    await expect(startFastSimulator({ apiKeys: ['has a space'] })).rejects.not.toThrow('has a space');
    await expect(startFastSimulator({ basicAuth: false })).rejects.toThrow('basicAuth: false needs at least one of apiKeys');
  });
});

describe('TLS', () => {
  let simulator: PrismSimulator;

  beforeAll(async () => {
    simulator = await startFastSimulator({ tls: true, tlsHostnames: ['prism.example.test'] });
  });
  afterAll(() => simulator.stop());

  it('serves HTTPS that verifies against the CA it hands out', async () => {
    expect(simulator.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(simulator.caCertPem).toMatch(/BEGIN CERTIFICATE/);
    expect(await httpsList(simulator, simulator.caCertPem)).toBe(200);
  });

  it('fails verification without the CA', async () => {
    await expect(httpsList(simulator, undefined)).rejects.toMatchObject({ code: expect.stringMatching(/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/) as unknown });
    await expect(fetch(`${simulator.url}/api/nutanix/v3/vms/list`, { method: 'POST' })).rejects.toThrow(/fetch failed/);
  });

  it('marks session cookies Secure, as the real server does', async () => {
    const cookies = await new Promise<string[]>((resolve, reject) => {
      const req = httpsRequest(`${simulator.url}/api/nutanix/v3/users/me`, { auth: `${simulator.username}:${simulator.password}`, ca: simulator.caCertPem }, (res) => {
        res.resume();
        resolve(res.headers['set-cookie'] ?? []);
      });
      req.on('error', reject);
      req.end();
    });
    expect(cookies).toHaveLength(2);
    for (const cookie of cookies) expect(cookie).toMatch(/; Secure;/);
  });
});
