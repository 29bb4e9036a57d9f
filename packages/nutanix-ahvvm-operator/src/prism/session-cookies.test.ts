import { describe, expect, it } from 'vitest';
import { SessionCookies } from './session-cookies.ts';

describe('SessionCookies', () => {
  it('has no session until Prism sets cookies, then sends their name=value pairs only', () => {
    const cookies = new SessionCookies();
    expect(cookies.header()).toBeUndefined();
    cookies.remember([
      'NTNX_IGW_SESSION=abc=; Expires=Sat, 07 Jun 2025 18:38:52 GMT; Path=/; Secure; HttpOnly; SameSite=Lax',
      'JSESSIONID=xyz; Path=/',
    ]);
    expect(cookies.header()).toBe('NTNX_IGW_SESSION=abc=; JSESSIONID=xyz');
  });

  it('replaces a cookie by name when Prism sets it again', () => {
    const cookies = new SessionCookies();
    cookies.remember(['JSESSIONID=old']);
    cookies.remember(['JSESSIONID=new']);
    expect(cookies.header()).toBe('JSESSIONID=new');
  });

  it('forgets the session a 401 rejected, but keeps a newer one', () => {
    const cookies = new SessionCookies();
    cookies.remember(['JSESSIONID=old']);
    cookies.forget('JSESSIONID=stale');
    expect(cookies.header()).toBe('JSESSIONID=old');
    cookies.forget('JSESSIONID=old');
    expect(cookies.header()).toBeUndefined();
  });
});
