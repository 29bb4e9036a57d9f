import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { Agent, request, type Dispatcher } from 'undici';
import type { ObjectKey } from '../objects/object-key.ts';
import { ApiError, isGone, isNotFound } from './errors.ts';
import type { ClusterAuth } from './kubeconfig/cluster-auth.ts';
import { loadClusterAuth, type LoadOptions } from './kubeconfig/load-cluster-auth.ts';
import { KubeConfigAuth, type ClusterTls } from './kubeconfig-auth.ts';
import { resourcePath } from './resource-path.ts';
import { apiVersionOf, type ResourceRef } from './resources.ts';
import type { RequestCounts, RequestVerb, RestClientMetricsSink } from './rest-metrics.ts';
import { parseRetryAfter, retryAfterWaitMs } from './retry.ts';
import { watchEvents, type WatchEvent } from './watch-stream.ts';

export interface KubeClientOptions {
  /** Receives every request for the `rest_client_*` metrics. Default: none. */
  metrics?: RestClientMetricsSink;
  /** The User-Agent header, which the API server's audit log records. Default `controller-core`. */
  userAgent?: string;
}

export interface ListOptions {
  /** Only this namespace; default all namespaces (namespaced resources) or none (cluster-scoped). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Objects per page (the `limit` parameter); 0 lists in one request. Default 500, client-go's pager page size. */
  pageSize?: number;
  signal?: AbortSignal;
}

/** Every object of a list, from all pages, and the resourceVersion the list was read at (to watch from). */
export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
}

export interface WriteOptions {
  /** Recorded in managedFields as the owner of the fields written. Default: the server's (derived from User-Agent). */
  fieldManager?: string;
}

export interface ApplyOptions {
  /** The field manager that owns what this apply sets; required by server-side apply. */
  fieldManager: string;
  /** Take over fields another manager owns instead of failing with a 409 conflict. Default false. */
  force?: boolean;
}

export interface DeleteOptions {
  /** Default: the resource's own (Background for most, Orphan for a few legacy kinds). */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Default: the object's own grace period. */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this UID / resourceVersion (409 Conflict otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** A patch and its kind: JSON merge patch (RFC 7386), strategic merge patch (built-in kinds only), JSON patch (RFC 6902). */
export type Patch =
  | { type: 'merge'; patch: object }
  | { type: 'strategic'; patch: object }
  | { type: 'json'; patch: JsonPatchOperation[] };

const PATCH_CONTENT_TYPES = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
} as const;

/** What server-side apply takes: the fields this manager wants set, with apiVersion/kind (filled from the ref if absent). */
export type ApplyConfiguration<T> = DeepPartial<T> & { metadata: { name: string; namespace?: string } };
type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this version; default: the server's current state, sent first as ADDED events. */
  resourceVersion?: string;
  /** Ask for BOOKMARK events, which advance the resourceVersion on quiet resources. Default true. */
  allowWatchBookmarks?: boolean;
  /** The server ends the watch after this long. Default: the server's (its --min-request-timeout, randomized). */
  timeoutSeconds?: number;
  /** Aborting ends the event stream quietly. */
  signal?: AbortSignal;
}

/**
 * Non-watch requests give up after this long without response headers or body data. The API server ends requests at
 * 60 s (--request-timeout) itself; this only catches connections that died silently.
 */
const REQUEST_TIMEOUT_MS = 90_000;

interface Call {
  verb: RequestVerb;
  method: Dispatcher.HttpMethod;
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  contentType?: string;
  /** May be sent again after a 5xx with Retry-After. */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
}

interface ListBody<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[] | null;
}

/**
 * A Kubernetes REST client without generated code: resources are described by a {@link ResourceRef}. HTTP goes through
 * one keep-alive undici Agent per client with TLS verification always on; credentials come from the kubeconfig or the
 * in-cluster ServiceAccount (see `kubeconfig/`) and are refreshed for rotated tokens. Client-side rate limiting is off,
 * as in controller-runtime: the API server's Priority & Fairness answers 429 with Retry-After, which the client
 * honours (see `retry.ts`).
 */
export class KubeClient {
  readonly server: string;
  readonly #auth: ClusterAuth;
  /** The connection pool, and the TLS material it was built with. */
  #agent: Agent;
  #agentTls: ClusterTls;
  /** Pools replaced after a certificate renewal, closing as their last requests end. */
  readonly #retiredAgents = new Set<Agent>();
  readonly #host: string;
  readonly #metrics: RestClientMetricsSink | undefined;
  readonly #userAgent: string;
  readonly #counts: RequestCounts = { get: 0, list: 0, watch: 0, create: 0, update: 0, patch: 0, apply: 0, delete: 0, raw: 0 };

  private constructor(auth: ClusterAuth, options: KubeClientOptions) {
    this.#auth = auth;
    this.server = auth.server;
    this.#host = new URL(auth.server).host;
    this.#metrics = options.metrics;
    this.#userAgent = options.userAgent ?? 'controller-core';
    this.#agentTls = auth.tls;
    this.#agent = agentFor(auth.tls);
  }

  /**
   * A client for the default configuration, in controller-runtime's order: `kubeconfig` if given, else the KUBECONFIG
   * list, else the in-cluster ServiceAccount, else ~/.kube/config.
   */
  static async load(options: KubeClientOptions & Pick<LoadOptions, 'kubeconfig' | 'context'> = {}): Promise<KubeClient> {
    const { kubeconfig, context, ...clientOptions } = options;
    return new KubeClient(await loadClusterAuth({ kubeconfig, context }), clientOptions);
  }

  /** A client for credentials loaded with {@link loadClusterAuth} (with options `load` does not pass, e.g. `env`). */
  static fromClusterAuth(auth: ClusterAuth, options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(auth, options);
  }

  /** A client for a client-node KubeConfig's current context, e.g. one a test or a tool has already loaded. */
  static async fromKubeConfig(kubeConfig: KubeConfig, options: KubeClientOptions = {}): Promise<KubeClient> {
    return new KubeClient(await KubeConfigAuth.load(kubeConfig), options);
  }

  /**
   * The object, or undefined when it does not exist. A 404 that is not about the object — the resource itself is not
   * served, e.g. its CRD is not installed — is thrown, not mistaken for an absent object.
   */
  async get<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey): Promise<T | undefined> {
    try {
      return await this.#json<T>({ verb: 'get', method: 'GET', path: resourcePath(ref, key), idempotent: true });
    } catch (error) {
      if (isObjectNotFound(error, key)) return undefined;
      throw error;
    }
  }

  /**
   * Every matching object, read page by page with `limit`/`continue`. List items come without apiVersion and kind from
   * the server; they are filled in from the ref. If a continue token expires mid-way (410), the list is read again in
   * one request, as client-go's pager does, so the result is always one consistent snapshot.
   */
  async list<T extends KubernetesObject>(ref: ResourceRef<T>, options: ListOptions = {}): Promise<ObjectList<T>> {
    const pageSize = options.pageSize ?? 500;
    const items: T[] = [];
    let continueToken: string | undefined;
    for (;;) {
      const query = selectorQuery(options);
      if (pageSize > 0) query.set('limit', String(pageSize));
      if (continueToken !== undefined) query.set('continue', continueToken);
      let page: ListBody<T>;
      try {
        page = await this.#listRequest(ref, options, query);
      } catch (error) {
        if (continueToken === undefined || !isGone(error)) throw error;
        return this.list(ref, { ...options, pageSize: 0 });
      }
      for (const item of page.items ?? []) items.push(withTypeMeta(ref, item));
      continueToken = page.metadata?.continue;
      if (continueToken === undefined || continueToken === '') {
        return { items, resourceVersion: page.metadata?.resourceVersion ?? '' };
      }
    }
  }

  #listRequest<T extends KubernetesObject>(ref: ResourceRef<T>, options: ListOptions, query: URLSearchParams): Promise<ListBody<T>> {
    const path = resourcePath(ref, { namespace: options.namespace });
    return this.#json<ListBody<T>>({ verb: 'list', method: 'GET', path, query, idempotent: true, signal: options.signal });
  }

  async create<T extends KubernetesObject>(ref: ResourceRef<T>, obj: T, options: WriteOptions = {}): Promise<T> {
    const path = resourcePath(ref, { namespace: namespaceFor(ref, obj) });
    return this.#json<T>({ verb: 'create', method: 'POST', path, query: writeQuery(options), body: withTypeMeta(ref, obj), idempotent: false });
  }

  /** PUT: replaces the object; fails with 409 Conflict when its resourceVersion is stale. */
  update<T extends KubernetesObject>(ref: ResourceRef<T>, obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#put(ref, obj, undefined, options);
  }

  /** PUT to the status subresource: only `status` changes; fails with 409 Conflict when resourceVersion is stale. */
  updateStatus<T extends KubernetesObject>(ref: ResourceRef<T>, obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#put(ref, obj, 'status', options);
  }

  #put<T extends KubernetesObject>(ref: ResourceRef<T>, obj: T, subresource: string | undefined, options: WriteOptions): Promise<T> {
    const path = resourcePath(ref, { namespace: namespaceFor(ref, obj), name: nameOf(ref, obj), subresource });
    return this.#json<T>({ verb: 'update', method: 'PUT', path, query: writeQuery(options), body: withTypeMeta(ref, obj), idempotent: true });
  }

  patch<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey, patch: Patch, options: WriteOptions = {}): Promise<T> {
    return this.#patch(ref, key, patch, undefined, options);
  }

  patchStatus<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey, patch: Patch, options: WriteOptions = {}): Promise<T> {
    return this.#patch(ref, key, patch, 'status', options);
  }

  #patch<T extends KubernetesObject>(
    ref: ResourceRef<T>,
    key: ObjectKey,
    patch: Patch,
    subresource: string | undefined,
    options: WriteOptions,
  ): Promise<T> {
    return this.#json<T>({
      verb: 'patch',
      method: 'PATCH',
      path: resourcePath(ref, { ...key, subresource }),
      query: writeQuery(options),
      body: patch.patch,
      contentType: PATCH_CONTENT_TYPES[patch.type],
      // A JSON patch may append to a list: sending it twice is not the same as once.
      idempotent: patch.type !== 'json',
    });
  }

  /** Server-side apply: sets the fields in `obj` as owned by `fieldManager`, creating the object if needed. */
  apply<T extends KubernetesObject>(ref: ResourceRef<T>, obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.#apply(ref, obj, undefined, options);
  }

  /** Server-side apply of the status subresource (the object must exist). */
  applyStatus<T extends KubernetesObject>(ref: ResourceRef<T>, obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.#apply(ref, obj, 'status', options);
  }

  #apply<T extends KubernetesObject>(
    ref: ResourceRef<T>,
    obj: ApplyConfiguration<T>,
    subresource: string | undefined,
    options: ApplyOptions,
  ): Promise<T> {
    const body = withTypeMeta(ref, obj as KubernetesObject);
    const query = new URLSearchParams({ fieldManager: options.fieldManager });
    if (options.force === true) query.set('force', 'true');
    return this.#json<T>({
      verb: 'apply',
      method: 'PATCH',
      path: resourcePath(ref, { namespace: namespaceFor(ref, body), name: nameOf(ref, body), subresource }),
      query,
      // JSON is YAML: the apply content type takes a JSON body.
      body,
      contentType: 'application/apply-patch+yaml',
      idempotent: true,
    });
  }

  /**
   * Deletes the object. Returns false when it did not exist (404 counts as deleted), true otherwise — including when
   * finalizers keep it around with a deletionTimestamp for now. As with `get`, a resource that is not served throws.
   */
  async delete(ref: ResourceRef, key: ObjectKey, options: DeleteOptions = {}): Promise<boolean> {
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: options.propagationPolicy,
      gracePeriodSeconds: options.gracePeriodSeconds,
      preconditions: options.preconditions,
    };
    try {
      await this.#json({ verb: 'delete', method: 'DELETE', path: resourcePath(ref, key), body, idempotent: true });
      return true;
    } catch (error) {
      if (isObjectNotFound(error, key)) return false;
      throw error;
    }
  }

  /**
   * Opens a watch. Resolves once the server accepted it (an HTTP error such as 410 Gone rejects with an ApiError), to
   * the stream of events; the stream ends when the server closes the watch (its timeout) or `signal` aborts, and
   * throws when the connection breaks. ERROR events are passed through for the caller to judge.
   */
  async watch<T extends KubernetesObject>(ref: ResourceRef<T>, options: WatchOptions = {}): Promise<AsyncGenerator<WatchEvent<T>, void, undefined>> {
    const query = selectorQuery(options);
    query.set('watch', 'true');
    if (options.resourceVersion !== undefined) query.set('resourceVersion', options.resourceVersion);
    if (options.allowWatchBookmarks ?? true) query.set('allowWatchBookmarks', 'true');
    if (options.timeoutSeconds !== undefined) query.set('timeoutSeconds', String(options.timeoutSeconds));
    const path = resourcePath(ref, { namespace: options.namespace });
    const response = await this.#exchange({ verb: 'watch', method: 'GET', path, query, idempotent: true, signal: options.signal }, 'stream');
    return watchEvents<T>(response.body, options.signal);
  }

  /**
   * Any other request, e.g. a subresource (`POST .../pods/x/binding`, `.../serviceaccounts/x/token`). `path` may carry
   * a query string. Returns the parsed JSON answer (or the text, if it is not JSON); throws ApiError on an error status.
   */
  async raw<R = unknown>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    options: { contentType?: string } = {},
  ): Promise<R> {
    const call: Call = { verb: 'raw', method, path, body, idempotent: method !== 'POST' && method !== 'PATCH' };
    if (options.contentType !== undefined) call.contentType = options.contentType;
    const text = await this.#exchange(call, 'text');
    return (parseJson(text.text) ?? text.text) as R;
  }

  /** Requests sent so far, per verb (a snapshot). */
  requestCounts(): RequestCounts {
    return { ...this.#counts };
  }

  /** Closes every connection, open watches included. Stop informers first; the client is unusable afterwards. */
  async close(): Promise<void> {
    await Promise.all([this.#agent, ...this.#retiredAgents].map((agent) => agent.destroy()));
  }

  /**
   * The connection pool for the current TLS material. An exec plugin that hands out a new client certificate changes
   * it: new requests then go through a new pool, and the old one closes once its requests (watches too) have ended.
   */
  #dispatcher(): Agent {
    if (this.#auth.tls !== this.#agentTls) {
      const previous = this.#agent;
      this.#agentTls = this.#auth.tls;
      this.#agent = agentFor(this.#agentTls);
      this.#retiredAgents.add(previous);
      void previous.close().finally(() => this.#retiredAgents.delete(previous));
    }
    return this.#agent;
  }

  async #json<R>(call: Call): Promise<R> {
    const { text } = await this.#exchange(call, 'text');
    return JSON.parse(text) as R;
  }

  #exchange(call: Call, mode: 'text'): Promise<{ text: string }>;
  #exchange(call: Call, mode: 'stream'): Promise<Dispatcher.ResponseData>;
  async #exchange(call: Call, mode: 'text' | 'stream'): Promise<{ text: string } | Dispatcher.ResponseData> {
    const query = call.query?.toString() ?? '';
    const url = `${this.server}${call.path}${query === '' ? '' : (call.path.includes('?') ? '&' : '?') + query}`;
    const requestName = `${call.method} ${call.path}`;
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
        response = await request(url, {
          method: call.method,
          dispatcher: this.#dispatcher(),
          headers,
          body: call.body === undefined ? null : JSON.stringify(call.body),
          signal: call.signal ?? null,
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
      await sleep(wait, undefined, { signal: call.signal });
    }
  }

  async #headers(call: Call): Promise<Record<string, string | string[]>> {
    const headers: Record<string, string | string[]> = { ...(await this.#auth.headers()), accept: 'application/json', 'user-agent': this.#userAgent };
    if (call.body !== undefined) headers['content-type'] = call.contentType ?? 'application/json';
    return headers;
  }

  #observe(call: Call, code: string, started: number): void {
    this.#metrics?.observeRequest({
      verb: call.verb,
      method: call.method,
      host: this.#host,
      code,
      durationSeconds: (performance.now() - started) / 1000,
    });
  }
}

/**
 * A 404 about this very object: its Status names it (`details.name`). A 404 for a resource the server does not serve
 * ("the server could not find the requested resource") names nothing.
 */
function isObjectNotFound(error: unknown, key: ObjectKey): boolean {
  return isNotFound(error) && (error as ApiError).details?.name === key.name;
}

function selectorQuery(options: { labelSelector?: string; fieldSelector?: string }): URLSearchParams {
  const query = new URLSearchParams();
  if (options.labelSelector !== undefined && options.labelSelector !== '') query.set('labelSelector', options.labelSelector);
  if (options.fieldSelector !== undefined && options.fieldSelector !== '') query.set('fieldSelector', options.fieldSelector);
  return query;
}

function writeQuery(options: WriteOptions): URLSearchParams | undefined {
  return options.fieldManager === undefined ? undefined : new URLSearchParams({ fieldManager: options.fieldManager });
}

/** The object with apiVersion and kind set from the ref where it has none (list items; bodies written without them). */
function withTypeMeta<T extends KubernetesObject>(ref: ResourceRef, obj: T): T {
  if (obj.apiVersion !== undefined && obj.kind !== undefined) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(ref), kind: obj.kind ?? ref.kind };
}

function namespaceFor(ref: ResourceRef, obj: KubernetesObject): string | undefined {
  const namespace = obj.metadata?.namespace;
  if (ref.namespaced && (namespace === undefined || namespace === '')) {
    throw new Error(`${ref.kind} ${obj.metadata?.name ?? ''} is namespaced: set metadata.namespace`);
  }
  return namespace;
}

function nameOf(ref: ResourceRef, obj: KubernetesObject): string {
  const name = obj.metadata?.name;
  if (name === undefined || name === '') throw new Error(`${ref.kind}: metadata.name is required`);
  return name;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One keep-alive pool to the API server, verifying its certificate against the configured CA (or Node's). */
function agentFor(tls: ClusterTls): Agent {
  return new Agent({
    connect: {
      // Only what the configuration gives: an explicit `ca: undefined` would replace Node's default CAs with none.
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls.cert === undefined ? {} : { cert: tls.cert }),
      ...(tls.key === undefined ? {} : { key: tls.key }),
      ...(tls.servername === undefined ? {} : { servername: tls.servername }),
      rejectUnauthorized: true,
    },
    // HTTP/1.1: every watch has its own connection, so one dead connection stalls one watch (which its watchdog
    // restarts), not every request multiplexed on a shared HTTP/2 session. It also sends a list-valued header
    // (Impersonate-Group) as one line per value, which the API server needs; undici's HTTP/2 joins them with commas.
    allowH2: false,
    keepAliveTimeout: 30_000,
  });
}
