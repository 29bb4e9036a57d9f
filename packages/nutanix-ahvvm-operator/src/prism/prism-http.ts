import { getCACertificates } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseRetryAfter, requestSignal } from '@k8s-operators/controller-core';
import { Agent, request, type Dispatcher } from 'undici';
import type { PrismAuthentication } from '../config/prism-credentials.ts';
import {
  PrismApiError,
  PrismAuthenticationError,
  PrismRateLimitedError,
  PrismTlsError,
  PrismTransportError,
  parsePrismErrorBody,
  type PrismRequestLabel,
} from './prism-errors.ts';
import { NO_PRISM_METRICS, type PrismMetricsSink } from './prism-metrics-sink.ts';
import {
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  type AttemptOutcome,
  type RequestRepeatability,
  type RetryPolicy,
} from './retry-policy.ts';
import { Semaphore } from './semaphore.ts';
import { SessionCookies } from './session-cookies.ts';

/**
 * HTTP to Prism Central's APIs (v3 below `/api/nutanix/v3`, v4 below `/api/<namespace>/v4.x`): one undici connection
 * pool (keep-alive, reused), TLS verified against the system's roots plus an optional CA, authentication (Basic with
 * the session-cookie login, or a service account's API key on every request), bounded concurrency, retries
 * (`retry-policy.ts`) and metrics. It knows nothing about VMs; `PrismClient` (v3) and `PrismV4Client` build the VM
 * operations on it.
 */

export const PRISM_API_PATH = '/api/nutanix/v3';

export interface PrismHttpOptions {
  /** `https://host:port`. */
  origin: string;
  /** Basic credentials (a session after the first request) or an API key (`X-ntnx-api-key` on every request). */
  credentials: PrismAuthentication;
  tls: { caCertPem?: string; insecureSkipVerify: boolean };
  /** Requests in flight at once, over all callers. Default 8. */
  maxConcurrentRequests?: number;
  /** Per attempt: how long to wait for the answer's headers, and then between body chunks. Default 30 s. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  metrics?: PrismMetricsSink;
  /** How the client waits between attempts. Default: a real timer. Tests pass one that records the waits. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Spreads backoff waits (0 ≤ r < 1). Default Math.random. */
  random?: () => number;
}

export const DEFAULT_MAX_CONCURRENT_REQUESTS = 8;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface PrismCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Concrete path below `basePath`, e.g. `/vms/1f0c…`; it may carry a query. */
  path: string;
  /** Default `PRISM_API_PATH` (v3); the v4 client passes its namespace's, e.g. `/api/vmm/v4.2/ahv/config`. */
  basePath?: string;
  /** Extra request headers, sent on every attempt (v4's `NTNX-Request-Id` and `If-Match`). */
  headers?: Readonly<Record<string, string>>;
  /** The path as a template, e.g. `/vms/{uuid}`, for metrics. */
  endpoint: string;
  body?: unknown;
  repeatability: RequestRepeatability;
  /** Error statuses the caller handles itself (404, 409 …); others throw. 2xx are always returned. */
  acceptStatuses?: readonly number[];
}

export interface PrismAnswer {
  status: number;
  /** Parsed JSON body; undefined when the body is empty. */
  body: unknown;
  /** The `ETag` header (v4 sends one with an entity). */
  etag: string | undefined;
}

/** Node's codes for a certificate that is not trusted or does not match the host. */
const TLS_VERIFICATION_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Failures that happen before a connection exists: the request cannot have reached Prism. */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

type AttemptResult =
  | { kind: 'answer'; status: number; body: string; etag: string | undefined; retryAfterMs: number | undefined; sentCookies: string | undefined }
  | { kind: 'no-answer'; error: PrismTransportError }
  /** A failure no retry can fix. */
  | { kind: 'fatal'; error: PrismTlsError };

export class PrismHttp {
  readonly #origin: string;
  readonly #credentials: PrismAuthentication;
  readonly #agent: Agent;
  readonly #semaphore: Semaphore;
  readonly #session = new SessionCookies();
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #metrics: PrismMetricsSink;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;

  constructor(options: PrismHttpOptions) {
    this.#origin = options.origin;
    this.#credentials = options.credentials;
    const maxConcurrent = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS;
    this.#semaphore = new Semaphore(maxConcurrent);
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#metrics = options.metrics ?? NO_PRISM_METRICS;
    this.#sleep = options.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
    this.#random = options.random ?? Math.random;
    const { caCertPem, insecureSkipVerify } = options.tls;
    this.#agent = new Agent({
      // No more sockets than requests may be in flight; idle ones are kept for reuse.
      connections: maxConcurrent,
      keepAliveTimeout: 30_000,
      connect: insecureSkipVerify
        ? { rejectUnauthorized: false }
        : // Giving `ca` replaces Node's trust store, so the default roots are passed along with the extra CA.
          { rejectUnauthorized: true, ...(caCertPem === undefined ? {} : { ca: [...getCACertificates('default'), caCertPem] }) },
    });
  }

  /**
   * Sends `call`, logging in and retrying as needed; returns 2xx and accepted answers, throws typed errors otherwise.
   * Sent from a reconcile, it ends when the reconcile is aborted (lost leadership, a stop, its timeout): while waiting
   * for a permit, for an answer, or between retries. Otherwise an outage's retries would hold the reconcile past the
   * 5 s the controller waits for it, and the process would exit.
   */
  async send(call: PrismCall): Promise<PrismAnswer> {
    const signal = requestSignal(undefined);
    const label: PrismRequestLabel = { method: call.method, path: call.path };
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    let attempt = 1;
    let loggedInAgain = false;
    for (;;) {
      const result = await this.#semaphore.run(() => this.#attempt(call, payload, signal), signal);
      if (result.kind === 'fatal') throw result.error;
      if (result.kind === 'answer' && result.status === 401) {
        // An expired session gets one fresh Basic login; a refused Basic login is final, so bad credentials cost one
        // request per call rather than a loop. An API key is sent on every request and never rides a session: its
        // 401 is final at once.
        if (result.sentCookies === undefined || loggedInAgain) {
          throw new PrismAuthenticationError(label, this.#credentials.describe());
        }
        this.#session.forget(result.sentCookies);
        loggedInAgain = true;
        continue;
      }
      if (result.kind === 'answer' && isAccepted(call, result.status)) {
        return { status: result.status, body: parseJson(label, result.status, result.body), etag: result.etag };
      }
      const delay = retryDelayMs(outcomeOf(result), call.repeatability, attempt, this.#retry, this.#random);
      if (delay === undefined) throw finalError(label, result);
      await this.#sleep(delay, signal);
      attempt += 1;
    }
  }

  /** Closes the pooled connections. */
  close(): Promise<void> {
    return this.#agent.close();
  }

  async #attempt(call: PrismCall, payload: string | undefined, signal: AbortSignal | undefined): Promise<AttemptResult> {
    // With an API key there is no session: the key goes on every request, and no cookie with it.
    const cookies = this.#credentials.usesSession ? this.#session.header() : undefined;
    const headers: Record<string, string> = {
      ...call.headers,
      accept: 'application/json',
      'user-agent': 'nutanix-ahvvm-operator',
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...(cookies === undefined ? this.#credentials.headers() : { cookie: cookies }),
    };
    const started = performance.now();
    let code = '<error>';
    try {
      const response = await request(`${this.#origin}${call.basePath ?? PRISM_API_PATH}${call.path}`, {
        dispatcher: this.#agent,
        method: call.method,
        headers,
        body: payload,
        signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
      const body = await response.body.text();
      const retryAfterSeconds = parseRetryAfter(response.headers['retry-after']);
      code = String(response.statusCode);
      // Prism may answer a key's request with session cookies too; they are not needed, so not kept.
      if (this.#credentials.usesSession) this.#session.remember(setCookieHeaders(response.headers));
      return {
        kind: 'answer',
        status: response.statusCode,
        body,
        etag: singleHeader(response.headers.etag),
        retryAfterMs: retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000,
        sentCookies: cookies,
      };
    } catch (error) {
      // An abort is the reconcile's end, not Prism's answer: no retry, no typed Prism error.
      if (signal?.aborted === true) throw signal.reason;
      const label = { method: call.method, path: call.path };
      const failure = errorCode(error);
      if (TLS_VERIFICATION_CODES.has(failure)) return { kind: 'fatal', error: new PrismTlsError(label, failure, error) };
      return {
        kind: 'no-answer',
        error: new PrismTransportError(label, failure, !NOT_CONNECTED_CODES.has(failure), error),
      };
    } finally {
      this.#metrics.requestFinished(
        { method: call.method, endpoint: call.endpoint, code },
        (performance.now() - started) / 1000,
      );
    }
  }
}

function isAccepted(call: PrismCall, status: number): boolean {
  return (status >= 200 && status < 300) || call.acceptStatuses?.includes(status) === true;
}

function outcomeOf(result: Exclude<AttemptResult, { kind: 'fatal' }>): AttemptOutcome {
  if (result.kind === 'no-answer') return { kind: 'no-answer', reachedServer: result.error.mayHaveBeenProcessed };
  return { kind: 'answer', status: result.status, ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }) };
}

function finalError(label: PrismRequestLabel, result: Exclude<AttemptResult, { kind: 'fatal' }>): Error {
  if (result.kind === 'no-answer') return result.error;
  const messages = parsePrismErrorBody(result.status, result.body);
  if (result.status === 429) return new PrismRateLimitedError(label, messages, result.retryAfterMs);
  return new PrismApiError(label, result.status, messages);
}

/** The code of an undici or Node error, looking through `cause` (undici wraps socket errors). */
function errorCode(error: unknown): string {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return code;
  }
  return error instanceof Error ? error.name : 'UNKNOWN';
}

function parseJson(label: PrismRequestLabel, status: number, text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new PrismApiError(label, status, [{ reason: 'INVALID_RESPONSE', message: 'the answer is not JSON' }]);
  }
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function setCookieHeaders(headers: Dispatcher.ResponseData['headers']): string[] {
  const value = headers['set-cookie'];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
