import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismSimulator } from '../src/index.ts';
import { PrismTestClient, firstMessage, startFastSimulator, type ErrorJson } from './prism-client.ts';

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
