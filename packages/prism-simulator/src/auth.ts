// Authentication as the v3 API documents it: Basic credentials on any request, or the session cookies
// the server sets on the first Basic-authenticated call. Sessions live 15 minutes ("Session tokens are
// alive for 15m"); after that the client must send Basic credentials again. Failures are a 401 whose body
// is not JSON, which is what prism-go-client expects from the real server.
//
// And a Prism Central service account's API key in the `X-ntnx-api-key` header, on v3 and v4 alike, as
// prism-go-client sends it (`internal/client.go` and `v4/v4.go`, `ntnxAPIKeyHeaderKey`, since v0.8.0) and the v4
// SDKs do (`client/api_client.go`, auth scheme `apiKeyAuthScheme`). A key authenticates the request it is on:
// the client needs no session. The server still answers a key's first request with session cookies, as it does a
// Basic login, because prism-go-client's v3 session mode (which CAPX uses with API keys, `pkg/client/cache.go`
// `WithSessionAuth(true)`) takes its cookies from a key-authenticated `GET /users/me` and could not work without
// them; that the real server does so is inferred from that client, not documented.

import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpReply } from './http-io.ts';

export const SESSION_TTL_MS = 15 * 60 * 1000;

/** The header a service account's API key comes in (Node lower-cases header names). */
export const API_KEY_HEADER = 'x-ntnx-api-key';

/**
 * The cookies of a PC without IAMv2 (and of PE). Both carry the same session; either one authenticates.
 * `NTNX_MERCURY_IGW_SESSION` is accepted too, as the docs list it with the other two.
 */
export const SESSION_COOKIES = ['NTNX_IGW_SESSION', 'JSESSIONID'] as const;
const ACCEPTED_COOKIES = new Set<string>([...SESSION_COOKIES, 'NTNX_MERCURY_IGW_SESSION']);

/** What a request was let in by. */
export type AuthenticatedBy = 'api-key' | 'session' | 'basic';

export type AuthResult = { ok: true; by: AuthenticatedBy; setCookie: string[] } | { ok: false };

export interface AuthOptions {
  username: string;
  password: string;
  /** False: no Basic login is accepted (a Prism Central the client may reach only with an API key). Default true. */
  basicAuth?: boolean;
  /** The service-account API keys accepted in `X-ntnx-api-key`. Default none. */
  apiKeys?: readonly string[];
  now: () => number;
  /** Marks cookies `Secure`, as the real server does; off for plain HTTP so cookie jars send them back. */
  secureCookies: boolean;
}

/** Visible ASCII without spaces: what an HTTP header value can carry unchanged. */
const API_KEY_TEXT = /^[\x21-\x7e]+$/;

/** Why the simulator cannot start with these settings, or undefined when it can. Never shows a key. */
export function authOptionsProblem(options: Pick<AuthOptions, 'basicAuth' | 'apiKeys'>): string | undefined {
  const keys = options.apiKeys ?? [];
  const bad = keys.findIndex((key) => !API_KEY_TEXT.test(key));
  if (bad >= 0) return `apiKeys[${bad}] must be visible ASCII without spaces, as it is sent in the X-ntnx-api-key header`;
  if (options.basicAuth === false && keys.length === 0) return 'basicAuth: false needs at least one of apiKeys, or nobody can log in';
  return undefined;
}

export class SessionAuthenticator {
  private readonly sessions = new Map<string, number>();
  private readonly options: AuthOptions;
  private readonly apiKeys: ReadonlySet<string>;

  constructor(options: AuthOptions) {
    const problem = authOptionsProblem(options);
    if (problem !== undefined) throw new Error(problem);
    this.options = options;
    this.apiKeys = new Set(options.apiKeys ?? []);
  }

  /**
   * An `X-ntnx-api-key` header decides alone: a key that is not one of `apiKeys` is a 401 whatever else the request
   * carries (the v4 SDKs send their cookie beside the key). Without one, a live session cookie, then Basic credentials.
   */
  authenticate(headers: IncomingHttpHeaders): AuthResult {
    const now = this.options.now();
    this.forgetExpired(now);
    const apiKey = headers[API_KEY_HEADER];
    if (apiKey !== undefined) {
      if (typeof apiKey !== 'string' || !this.apiKeys.has(apiKey)) return { ok: false };
      return { ok: true, by: 'api-key', setCookie: this.hasLiveSession(headers.cookie) ? [] : this.startSession(now) };
    }
    if (this.hasLiveSession(headers.cookie)) return { ok: true, by: 'session', setCookie: [] };
    if (this.options.basicAuth === false || !this.hasValidBasic(headers.authorization)) return { ok: false };
    return { ok: true, by: 'basic', setCookie: this.startSession(now) };
  }

  private startSession(now: number): string[] {
    const token = randomBytes(24).toString('base64url');
    const expiresAt = now + SESSION_TTL_MS;
    this.sessions.set(token, expiresAt);
    const attributes = `Expires=${new Date(expiresAt).toUTCString()}; Path=/;${this.options.secureCookies ? ' Secure;' : ''} HttpOnly; SameSite=Lax`;
    return SESSION_COOKIES.map((name) => `${name}=${token}; ${attributes}`);
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

/**
 * The non-JSON 401, the same for bad Basic credentials, a wrong API key, an expired session and none of them, on v3
 * and v4 paths alike: prism-go-client's `CheckResponse` says "Nutanix returns non-json response with code 401 when
 * invalid credentials are used". The realm is the one PC's gateway is reported to send (unverified).
 */
export function unauthorizedReply(): HttpReply {
  return {
    status: 401,
    text: 'Authentication required: send valid Basic credentials, a valid X-ntnx-api-key or a live session cookie.\n',
    headers: { 'www-authenticate': 'Basic realm="Intent Gateway Login Required"' },
  };
}
