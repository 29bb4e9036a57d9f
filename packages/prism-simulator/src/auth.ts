// Authentication as the v3 API documents it: Basic credentials on any request, or the session cookies
// the server sets on the first Basic-authenticated call. Sessions live 15 minutes ("Session tokens are
// alive for 15m"); after that the client must send Basic credentials again. Failures are a 401 whose body
// is not JSON, which is what prism-go-client expects from the real server.

import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpReply } from './http-io.ts';

export const SESSION_TTL_MS = 15 * 60 * 1000;

/**
 * The cookies of a PC without IAMv2 (and of PE). Both carry the same session; either one authenticates.
 * `NTNX_MERCURY_IGW_SESSION` is accepted too, as the docs list it with the other two.
 */
export const SESSION_COOKIES = ['NTNX_IGW_SESSION', 'JSESSIONID'] as const;
const ACCEPTED_COOKIES = new Set<string>([...SESSION_COOKIES, 'NTNX_MERCURY_IGW_SESSION']);

export type AuthResult = { ok: true; setCookie: string[] } | { ok: false };

export interface AuthOptions {
  username: string;
  password: string;
  now: () => number;
  /** Marks cookies `Secure`, as the real server does; off for plain HTTP so cookie jars send them back. */
  secureCookies: boolean;
}

export class SessionAuthenticator {
  private readonly sessions = new Map<string, number>();
  private readonly options: AuthOptions;

  constructor(options: AuthOptions) {
    this.options = options;
  }

  authenticate(headers: IncomingHttpHeaders): AuthResult {
    const now = this.options.now();
    this.forgetExpired(now);
    if (this.hasLiveSession(headers.cookie)) return { ok: true, setCookie: [] };
    if (!this.hasValidBasic(headers.authorization)) return { ok: false };
    const token = randomBytes(24).toString('base64url');
    const expiresAt = now + SESSION_TTL_MS;
    this.sessions.set(token, expiresAt);
    const attributes = `Expires=${new Date(expiresAt).toUTCString()}; Path=/;${this.options.secureCookies ? ' Secure;' : ''} HttpOnly; SameSite=Lax`;
    return { ok: true, setCookie: SESSION_COOKIES.map((name) => `${name}=${token}; ${attributes}`) };
  }

  private hasLiveSession(cookieHeader: string | undefined): boolean {
    for (const pair of (cookieHeader ?? '').split(';')) {
      const [name = '', ...value] = pair.trim().split('=');
      if (ACCEPTED_COOKIES.has(name) && this.sessions.has(value.join('='))) return true;
    }
    return false;
  }

  private hasValidBasic(authorization: string | undefined): boolean {
    const match = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (!match?.[1]) return false;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const separator = decoded.indexOf(':');
    return separator >= 0 && decoded.slice(0, separator) === this.options.username && decoded.slice(separator + 1) === this.options.password;
  }

  private forgetExpired(now: number): void {
    for (const [token, expiresAt] of this.sessions) if (expiresAt <= now) this.sessions.delete(token);
  }
}

/** The non-JSON 401. The realm is the one PC's gateway is reported to send (unverified). */
export function unauthorizedReply(): HttpReply {
  return {
    status: 401,
    text: 'Authentication required: send valid Basic credentials or a live session cookie.\n',
    headers: { 'www-authenticate': 'Basic realm="Intent Gateway Login Required"' },
  };
}
