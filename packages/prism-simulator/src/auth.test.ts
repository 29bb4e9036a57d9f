import { describe, expect, it } from 'vitest';
import { SESSION_TTL_MS, SessionAuthenticator } from './auth.ts';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function authenticator(secureCookies = true): { auth: SessionAuthenticator; clock: { now: number } } {
  const clock = { now: Date.UTC(2025, 5, 7, 18, 23, 52) };
  return { auth: new SessionAuthenticator({ username: 'admin', password: 'p:w', now: () => clock.now, secureCookies }), clock };
}

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

    expect(auth.authenticate({ cookie: `JSESSIONID=${token}` })).toEqual({ ok: true, setCookie: [] });
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
});
