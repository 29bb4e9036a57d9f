import { KubeConfig } from '@kubernetes/client-node';
import { Agent, request, type Dispatcher } from 'undici';

/** An error answer of the API server, with its Status reason (NotFound, Conflict, Forbidden, ...). */
export class KubeApiError extends Error {
  readonly status: number;
  readonly reason: string | undefined;
  constructor(method: string, path: string, status: number, body: unknown) {
    const statusBody = body as { message?: string; reason?: string } | undefined;
    super(`${method} ${path} → ${status}: ${statusBody?.message ?? JSON.stringify(body)}`);
    this.status = status;
    this.reason = statusBody?.reason;
  }
}

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/**
 * The small REST client testkit's own machinery uses (the local node, fixtures). It is deliberately separate
 * from controller-core, which is the thing under test and must not be needed to run the cluster it is tested on.
 */
export class KubeApi {
  readonly server: string;
  readonly #dispatcher: Dispatcher;
  readonly #headers: Record<string, string>;

  private constructor(server: string, dispatcher: Dispatcher, headers: Record<string, string>) {
    this.server = server;
    this.#dispatcher = dispatcher;
    this.#headers = headers;
  }

  static async fromKubeconfig(path: string): Promise<KubeApi> {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`kubeconfig ${path} has no current cluster`);
    const opts: { ca?: unknown; cert?: unknown; key?: unknown; headers?: Record<string, string> } = {};
    await kc.applyToHTTPSOptions(opts);
    const dispatcher = new Agent({
      connect: { ca: opts.ca as string | undefined, cert: opts.cert as string | undefined, key: opts.key as string | undefined },
      keepAliveTimeout: 30_000,
    });
    return new KubeApi(cluster.server, dispatcher, { ...(opts.headers ?? {}) });
  }

  async request(method: Dispatcher.HttpMethod, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: unknown }> {
    const response = await request(`${this.server}${path}`, {
      method,
      dispatcher: this.#dispatcher,
      headers: { ...this.#headers, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  async #expect<T>(method: Dispatcher.HttpMethod, path: string, body?: unknown, contentType?: string): Promise<T> {
    const response = await this.request(method, path, body, contentType);
    if (response.status >= 400) throw new KubeApiError(method, path, response.status, response.body);
    return response.body as T;
  }

  /** GET; undefined when the object does not exist. */
  async get<T>(path: string): Promise<T | undefined> {
    const response = await this.request('GET', path);
    if (response.status === 404) return undefined;
    if (response.status >= 400) throw new KubeApiError('GET', path, response.status, response.body);
    return response.body as T;
  }

  create<T>(path: string, body: unknown): Promise<T> {
    return this.#expect<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.#expect<T>('PUT', path, body);
  }

  mergePatch<T>(path: string, patch: unknown): Promise<T> {
    return this.#expect<T>('PATCH', path, patch, 'application/merge-patch+json');
  }

  /** DELETE; a missing object counts as deleted. */
  async delete(path: string, options?: { gracePeriodSeconds?: number; uid?: string; propagationPolicy?: string }): Promise<void> {
    const body = options ? { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: options.gracePeriodSeconds,
      propagationPolicy: options.propagationPolicy, ...(options.uid ? { preconditions: { uid: options.uid } } : {}) } : undefined;
    const response = await this.request('DELETE', path, body);
    if (response.status >= 400 && response.status !== 404 && response.status !== 409) {
      throw new KubeApiError('DELETE', path, response.status, response.body);
    }
  }

  /**
   * Streams watch events until the server ends the stream, the signal aborts, or an error; the caller relists
   * and watches again (testkit's watches are short-lived by design: the server cuts them every few minutes).
   */
  async watch<T>(path: string, resourceVersion: string, onEvent: (event: WatchEvent<T>) => void, signal: AbortSignal): Promise<void> {
    const separator = path.includes('?') ? '&' : '?';
    const url = `${this.server}${path}${separator}watch=true&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=${resourceVersion}`;
    const response = await request(url, { method: 'GET', dispatcher: this.#dispatcher, headers: { ...this.#headers, accept: 'application/json' }, signal });
    if (response.statusCode >= 400) {
      const text = await response.body.text();
      throw new KubeApiError('WATCH', path, response.statusCode, text ? JSON.parse(text) : undefined);
    }
    let buffered = '';
    for await (const chunk of response.body) {
      buffered += (chunk as Buffer).toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) onEvent(JSON.parse(line) as WatchEvent<T>);
      }
    }
  }

  async close(): Promise<void> {
    await this.#dispatcher.close();
  }
}
