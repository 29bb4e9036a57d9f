import { describe, expect, it } from 'vitest';
import { SESSION_TTL_MS, SessionAuthenticator, authOptionsProblem, unauthorizedReply, type AuthOptions } from './auth.ts';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function authenticator(secureCookies = true, options: Partial<AuthOptions> = {}): { auth: SessionAuthenticator; clock: { now: number } } {
  const clock = { now: Date.UTC(2025, 5, 7, 18, 23, 52) };
  return { auth: new SessionAuthenticator({ username: 'admin', password: 'p:w', now: () => clock.now, secureCookies, ...options }), clock };
}

/** Shaped like a Prism Central service account's key; made up. */
const KEY = 'ntnx-sa-7Hq2vXk9TzLw4pRm8sYc3bNe6fJd5gUa';

describe('SessionAuthenticator', () => {
  it('accepts valid Basic credentials (passwords may contain colons) and rejects others', () => {
    const { auth } = authenticator();
    expect(auth.authenticate({ authorization: basic('admin', 'p:w') }).ok).toBe(true);
    expect(auth.authenticate({ authorization: basic('admin', 'wrong') }).ok).toBe(false);
    expect(auth.authenticate({ authorization: 'Bearer token' }).ok).toBe(false);
    expect(auth.authenticate({}).ok).toBe(false);
  });

  it('sets NTNX_IGW_SESSION and JSESSIONID for 15 minutes and accepts either until they expire', () => {
    const { auth, clock } = authenticator();
    const first = auth.authenticate({ authorization: basic('admin', 'p:w') });
    if (!first.ok) throw new Error('expected success');
    expect(first.setCookie).toHaveLength(2);
    expect(first.setCookie[0]).toMatch(/^NTNX_IGW_SESSION=[\w-]+; Expires=Sat, 07 Jun 2025 18:38:52 GMT; Path=\/; Secure; HttpOnly; SameSite=Lax$/);
    expect(first.setCookie[1]).toMatch(/^JSESSIONID=/);
    const token = /=([^;]+);/.exec(first.setCookie[0] ?? '')?.[1] ?? '';

    expect(auth.authenticate({ cookie: `JSESSIONID=${token}` })).toEqual({ ok: true, by: 'session', setCookie: [] });
    clock.now += SESSION_TTL_MS - 1;
    expect(auth.authenticate({ cookie: `other=1; NTNX_IGW_SESSION=${token}` }).ok).toBe(true);
    clock.now += 1;
    expect(auth.authenticate({ cookie: `NTNX_IGW_SESSION=${token}` }).ok).toBe(false);
  });

  it('leaves out Secure on plain HTTP so cookie jars send the cookie back', () => {
    const { auth } = authenticator(false);
    const result = auth.authenticate({ authorization: basic('admin', 'p:w') });
    expect(result.ok && result.setCookie.every((cookie) => !cookie.includes('Secure'))).toBe(true);
  });

  it('says what let a request in', () => {
    const { auth } = authenticator(true, { apiKeys: [KEY] });
    const login = auth.authenticate({ authorization: basic('admin', 'p:w') });
    expect(login).toMatchObject({ ok: true, by: 'basic' });
    expect(auth.authenticate({ 'x-ntnx-api-key': KEY })).toMatchObject({ ok: true, by: 'api-key' });
    const cookie = login.ok ? (login.setCookie[0] ?? '').split(';')[0] : '';
    expect(auth.authenticate({ cookie })).toMatchObject({ ok: true, by: 'session' });
  });
});

// prism-go-client v0.8.1 (1e253ea) internal/client.go and v4/v4.go send a service account's key as
// `X-ntnx-api-key: <key>` (ntnxAPIKeyHeaderKey) instead of Basic credentials, on every request of the v4 client and on
// every v3 request without a session; CAPX 946f0db (#745) passes it from a Secret of `"type": "api_key"`.
describe('SessionAuthenticator with API keys', () => {
  it('accepts a configured key in X-ntnx-api-key and nothing else there', () => {
    const { auth } = authenticator(true, { apiKeys: ['another-key', KEY] });
    expect(auth.authenticate({ 'x-ntnx-api-key': KEY })).toMatchObject({ ok: true, by: 'api-key' });
    expect(auth.authenticate({ 'x-ntnx-api-key': 'another-key' })).toMatchObject({ ok: true, by: 'api-key' });
    for (const wrong of [`${KEY}x`, KEY.slice(1), '', ` ${KEY}`, KEY.toUpperCase()]) {
      expect(auth.authenticate({ 'x-ntnx-api-key': wrong }), JSON.stringify(wrong)).toEqual({ ok: false });
    }
  });

  it('judges a request by its key alone: a wrong key is refused beside valid Basic credentials or a live session', () => {
    const { auth } = authenticator(true, { apiKeys: [KEY] });
    const login = auth.authenticate({ authorization: basic('admin', 'p:w') });
    const cookie = login.ok ? (login.setCookie[0] ?? '').split(';')[0] : '';
    expect(auth.authenticate({ 'x-ntnx-api-key': 'wrong', authorization: basic('admin', 'p:w') })).toEqual({ ok: false });
    expect(auth.authenticate({ 'x-ntnx-api-key': 'wrong', cookie })).toEqual({ ok: false });
    expect(auth.authenticate({ 'x-ntnx-api-key': KEY, authorization: basic('admin', 'wrong') })).toMatchObject({ ok: true, by: 'api-key' });
  });

  it("answers a key's first request with session cookies, as a Basic login, and none while that session lives", () => {
    const { auth, clock } = authenticator(true, { apiKeys: [KEY] });
    const first = auth.authenticate({ 'x-ntnx-api-key': KEY });
    if (!first.ok) throw new Error('expected success');
    expect(first.setCookie.map((c) => c.split('=')[0])).toEqual(['NTNX_IGW_SESSION', 'JSESSIONID']);
    const cookie = (first.setCookie[0] ?? '').split(';')[0] ?? '';
    // The v4 SDKs send the key beside the cookie they got: no new session each time.
    expect(auth.authenticate({ 'x-ntnx-api-key': KEY, cookie })).toEqual({ ok: true, by: 'api-key', setCookie: [] });
    // prism-go-client's v3 session mode sends the cookie alone.
    expect(auth.authenticate({ cookie })).toEqual({ ok: true, by: 'session', setCookie: [] });
    clock.now += SESSION_TTL_MS;
    expect(auth.authenticate({ cookie })).toEqual({ ok: false });
    expect(auth.authenticate({ 'x-ntnx-api-key': KEY, cookie })).toMatchObject({ ok: true, by: 'api-key', setCookie: [expect.any(String), expect.any(String)] });
  });

  it('with basicAuth false refuses even the right Basic credentials, and takes the key', () => {
    const { auth } = authenticator(true, { basicAuth: false, apiKeys: [KEY] });
    expect(auth.authenticate({ authorization: basic('admin', 'p:w') })).toEqual({ ok: false });
    expect(auth.authenticate({ 'x-ntnx-api-key': KEY })).toMatchObject({ ok: true, by: 'api-key' });
  });

  it('refuses settings nobody could log in with, or a key no header can carry, without showing the key', () => {
    expect(authOptionsProblem({ basicAuth: false })).toBe('basicAuth: false needs at least one of apiKeys, or nobody can log in');
    expect(authOptionsProblem({ basicAuth: false, apiKeys: [] })).toMatch(/needs at least one of apiKeys/);
    expect(authOptionsProblem({ apiKeys: [KEY, 'has space'] })).toBe('apiKeys[1] must be visible ASCII without spaces, as it is sent in the X-ntnx-api-key header');
    expect(authOptionsProblem({ apiKeys: [''] })).toMatch(/^apiKeys\[0\] must be/);
    expect(authOptionsProblem({ apiKeys: [KEY] })).toBeUndefined();
    expect(() => new SessionAuthenticator({ username: 'a', password: 'b', apiKeys: ['bad key'], now: Date.now, secureCookies: false })).toThrow(/apiKeys\[0\]/);
    expect(() => new SessionAuthenticator({ username: 'a', password: 'b', apiKeys: ['bad key'], now: Date.now, secureCookies: false })).not.toThrow(/bad key/);
  });

  it('answers a wrong key with the same non-JSON 401 as wrong Basic credentials', () => {
    const reply = unauthorizedReply();
    expect(reply).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Basic realm="Intent Gateway Login Required"' } });
    expect(reply.json).toBeUndefined();
    expect(reply.text).toMatch(/X-ntnx-api-key/);
  });
});
