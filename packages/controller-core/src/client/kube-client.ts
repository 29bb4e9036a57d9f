import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectKey } from '../objects/object-key.ts';
import { ApiTransport, parseJson, type ApiCall } from './api-transport.ts';
import { ApiError, isGone, isNotFound } from './errors.ts';
import type { ClusterAuth } from './kubeconfig/cluster-auth.ts';
import { loadClusterAuth, type LoadOptions } from './kubeconfig/load-cluster-auth.ts';
import {
  PATCH_CONTENT_TYPES,
  selectorQuery,
  watchQuery,
  writeQuery,
  type ApplyConfiguration,
  type ApplyOptions,
  type DeleteOptions,
  type ListOptions,
  type ObjectList,
  type Patch,
  type WatchOptions,
  type WriteOptions,
  type GetOptions,
} from './request-options.ts';
import { resourcePath } from './resource-path.ts';
import { apiVersionOf, type ResourceRef } from './resources.ts';
import type { RequestCounts, RestClientMetricsSink } from './rest-metrics.ts';
import { watchEvents, type WatchEvent } from './watch-stream.ts';

// The verbs' option types, exported beside the client that takes them.
export type { ApplyConfiguration, ApplyOptions, DeleteOptions, GetOptions, JsonPatchOperation, ListOptions, ObjectList, Patch, WatchOptions, WriteOptions } from './request-options.ts';

export interface KubeClientOptions {
  /** Receives every request for the `rest_client_*` metrics. Default: none. */
  metrics?: RestClientMetricsSink;
  /** The User-Agent header, which the API server's audit log records. Default `controller-core`. */
  userAgent?: string;
}

interface ListBody<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[] | null;
}

/**
 * A Kubernetes REST client without generated code: resources are described by a {@link ResourceRef}. The verbs here
 * build the requests; {@link ApiTransport} sends them over one keep-alive connection pool with TLS verification always
 * on, with credentials from the kubeconfig or the in-cluster ServiceAccount (see `kubeconfig/`), refreshed for rotated
 * tokens. Client-side rate limiting is off, as in controller-runtime: the API server's Priority & Fairness answers 429
 * with Retry-After, which the client honours (see `retry.ts`).
 */
export class KubeClient {
  readonly server: string;
  readonly #transport: ApiTransport;

  private constructor(auth: ClusterAuth, options: KubeClientOptions) {
    this.#transport = new ApiTransport(auth, { metrics: options.metrics, userAgent: options.userAgent ?? 'controller-core' });
    this.server = this.#transport.server;
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

  /**
   * The object, or undefined when it does not exist. A 404 that is not about the object — the resource itself is not
   * served, e.g. its CRD is not installed — is thrown, not mistaken for an absent object.
   */
  async get<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey, options: GetOptions = {}): Promise<T | undefined> {
    try {
      return await this.#transport.json<T>({ verb: 'get', method: 'GET', path: resourcePath(ref, key), idempotent: true, signal: options.signal });
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
    return this.#transport.json<ListBody<T>>({ verb: 'list', method: 'GET', path, query, idempotent: true, signal: options.signal });
  }

  async create<T extends KubernetesObject>(ref: ResourceRef<T>, obj: T, options: WriteOptions = {}): Promise<T> {
    const path = resourcePath(ref, { namespace: namespaceFor(ref, obj) });
    return this.#transport.json<T>({ verb: 'create', method: 'POST', path, query: writeQuery(options), body: withTypeMeta(ref, obj), idempotent: false, signal: options.signal });
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
    return this.#transport.json<T>({ verb: 'update', method: 'PUT', path, query: writeQuery(options), body: withTypeMeta(ref, obj), idempotent: true, signal: options.signal });
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
    return this.#transport.json<T>({
      verb: 'patch',
      method: 'PATCH',
      path: resourcePath(ref, { ...key, subresource }),
      query: writeQuery(options),
      body: patch.patch,
      contentType: PATCH_CONTENT_TYPES[patch.type],
      // A JSON patch may append to a list: sending it twice is not the same as once.
      idempotent: patch.type !== 'json',
      signal: options.signal,
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
    return this.#transport.json<T>({
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
      await this.#transport.json({ verb: 'delete', method: 'DELETE', path: resourcePath(ref, key), body, idempotent: true });
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
    const query = watchQuery(options);
    const path = resourcePath(ref, { namespace: options.namespace });
    const response = await this.#transport.exchange({ verb: 'watch', method: 'GET', path, query, idempotent: true, signal: options.signal }, 'stream');
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
    const call: ApiCall = { verb: 'raw', method, path, body, idempotent: method !== 'POST' && method !== 'PATCH' };
    if (options.contentType !== undefined) call.contentType = options.contentType;
    const text = await this.#transport.exchange(call, 'text');
    return (parseJson(text.text) ?? text.text) as R;
  }

  /** Requests sent so far, per verb (a snapshot). */
  requestCounts(): RequestCounts {
    return this.#transport.requestCounts();
  }

  /** Closes every connection, open watches included. Stop informers first; the client is unusable afterwards. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

/**
 * A 404 about this very object: its Status names it (`details.name`). A 404 for a resource the server does not serve
 * ("the server could not find the requested resource") names nothing.
 */
function isObjectNotFound(error: unknown, key: ObjectKey): boolean {
  return isNotFound(error) && (error as ApiError).details?.name === key.name;
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
