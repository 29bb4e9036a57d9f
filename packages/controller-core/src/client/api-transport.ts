import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { connectionPool } from './connection-pool.ts';
import { ApiError } from './errors.ts';
import type { ClusterAuth, ClusterTls } from './kubeconfig/cluster-auth.ts';
import type { RequestCounts, RequestVerb, RestClientMetricsSink } from './rest-metrics.ts';
import { parseRetryAfter, retryAfterWaitMs } from './retry.ts';
import { requestSignal } from './request-scope.ts';

/**
 * Non-watch requests give up after this long without response headers or body data. The API server ends requests at
 * 60 s (--request-timeout) itself; this only catches connections that died silently.
 */
const REQUEST_TIMEOUT_MS = 90_000;

/** One request to the API server, as a verb sends it. */
export interface ApiCall {
  verb: RequestVerb;
  method: Dispatcher.HttpMethod;
  path: string;
  query?: URLSearchParams | undefined;
  body?: unknown;
  contentType?: string;
  /** May be sent again after a 5xx with Retry-After. */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
}

export interface ApiTransportOptions {
  metrics?: RestClientMetricsSink | undefined;
  userAgent: string;
}

/**
 * HTTP to one API server: one keep-alive connection pool (directly or through a proxy) with TLS verification always on, credentials from a
 * {@link ClusterAuth} (read again once after a 401, for rotated tokens), Retry-After honoured on 429 and 5xx (see
 * `retry.ts`), every request counted and reported for the `rest_client_*` metrics.
 */
export class ApiTransport {
  readonly server: string;
  readonly #auth: ClusterAuth;
  /** The connection pool, and the TLS material it was built with. */
  #pool: Dispatcher;
  #poolTls: ClusterTls;
  /** Pools replaced after a certificate renewal, closing as their last requests end. */
  readonly #retiredPools = new Set<Dispatcher>();
  readonly #host: string;
  readonly #metrics: RestClientMetricsSink | undefined;
  readonly #userAgent: string;
  readonly #counts: RequestCounts = { get: 0, list: 0, watch: 0, create: 0, update: 0, patch: 0, apply: 0, delete: 0, raw: 0 };

  constructor(auth: ClusterAuth, options: ApiTransportOptions) {
    this.#auth = auth;
    this.server = auth.server;
    this.#host = new URL(auth.server).host;
    this.#metrics = options.metrics;
    this.#userAgent = options.userAgent;
    this.#poolTls = auth.tls;
    this.#pool = connectionPool(auth.tls, auth.proxy);
  }

  /** Requests sent so far, per verb (a snapshot). */
  requestCounts(): RequestCounts {
    return { ...this.#counts };
  }

  /** Closes every connection, open watches included. */
  async close(): Promise<void> {
    await Promise.all([this.#pool, ...this.#retiredPools].map((pool) => pool.destroy()));
  }

  async json<R>(call: ApiCall): Promise<R> {
    const { text } = await this.exchange(call, 'text');
    return JSON.parse(text) as R;
  }

  /**
   * Sends the call and returns the answer's text, or with `stream` the response itself (its body unread) once the
   * server accepted it. An error status throws an {@link ApiError}.
   */
  exchange(call: ApiCall, mode: 'text'): Promise<{ text: string }>;
  exchange(call: ApiCall, mode: 'stream'): Promise<Dispatcher.ResponseData>;
  async exchange(call: ApiCall, mode: 'text' | 'stream'): Promise<{ text: string } | Dispatcher.ResponseData> {
    const query = call.query?.toString() ?? '';
    const url = new URL(`${this.server}${call.path}${query === '' ? '' : (call.path.includes('?') ? '&' : '?') + query}`);
    const requestName = `${call.method} ${call.path}`;
    // A reconcile's requests end with it, even those that were not handed its signal (request-scope.ts).
    const signal = requestSignal(call.signal);
    let retries = 0;
    let reauthenticated = false;
    for (;;) {
      this.#counts[call.verb]++;
      const started = performance.now();
      let response: Dispatcher.ResponseData;
      let text: string;
      try {
        // Headers first: reading credentials may renew the client certificate that picks the connection pool.
        const headers = await this.#headers(call);
        response = await this.#dispatcher().request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: call.method,
          headers,
          body: call.body === undefined ? null : JSON.stringify(call.body),
          signal: signal ?? null,
          headersTimeout: REQUEST_TIMEOUT_MS,
          // A watch is quiet for as long as its resource is; the informer's watchdog judges it, not a body timeout.
          bodyTimeout: mode === 'stream' ? 0 : REQUEST_TIMEOUT_MS,
        });
        if (mode === 'stream' && response.statusCode < 400) {
          this.#observe(call, String(response.statusCode), started);
          return response;
        }
        text = await response.body.text();
      } catch (error) {
        this.#observe(call, '<error>', started);
        throw error;
      }
      const code = String(response.statusCode);
      this.#observe(call, code, started);
      if (response.statusCode < 400) return { text };

      if (response.statusCode === 401 && !reauthenticated) {
        // A rotated token (ServiceAccount token file, exec plugin): read the credentials again, once.
        reauthenticated = true;
        await this.#auth.refresh();
        this.#metrics?.observeRetry({ verb: call.verb, method: call.method, host: this.#host, code });
        continue;
      }
      const retryAfterSeconds = parseRetryAfter(response.headers['retry-after']);
      const wait = retryAfterWaitMs({ status: response.statusCode, retryAfterSeconds, idempotent: call.idempotent, retriesSoFar: retries });
      if (wait === undefined) {
        throw new ApiError({ status: response.statusCode, body: parseJson(text) ?? text, request: requestName, retryAfterSeconds });
      }
      retries++;
      this.#metrics?.observeRetry({ verb: call.verb, method: call.method, host: this.#host, code });
      await sleep(wait, undefined, { signal });
    }
  }

  /**
   * The connection pool for the current TLS material. An exec plugin that hands out a new client certificate changes
   * it: new requests then go through a new pool, and the old one closes once its requests (watches too) have ended.
   */
  #dispatcher(): Dispatcher {
    if (this.#auth.tls !== this.#poolTls) {
      const previous = this.#pool;
      this.#poolTls = this.#auth.tls;
      this.#pool = connectionPool(this.#poolTls, this.#auth.proxy);
      this.#retiredPools.add(previous);
      void previous.close().finally(() => this.#retiredPools.delete(previous));
    }
    return this.#pool;
  }

  async #headers(call: ApiCall): Promise<Record<string, string | string[]>> {
    const headers: Record<string, string | string[]> = { ...(await this.#auth.headers()), accept: 'application/json', 'user-agent': this.#userAgent };
    if (call.body !== undefined) headers['content-type'] = call.contentType ?? 'application/json';
    return headers;
  }

  #observe(call: ApiCall, code: string, started: number): void {
    this.#metrics?.observeRequest({
      verb: call.verb,
      method: call.method,
      host: this.#host,
      code,
      durationSeconds: (performance.now() - started) / 1000,
    });
  }
}

/** The JSON in `text`, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
