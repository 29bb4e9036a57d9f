import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isUnreachable, isUntrustedCertificate } from '../stores/connection-errors.ts';
import type { Digest } from '../stores/digest.ts';
import type { BackupManifest } from '../stores/manifest.ts';
import { BackupStoreError, checkBackupKey, checkScope } from '../stores/store.ts';
import type { BackupKey, BackupScope, BackupStore, ChecksumCheck, StoreListing, StoredData } from '../stores/store.ts';
import { routeOf, type StoreErrorBody, type StoreRequest } from './store-protocol.ts';

/**
 * The backup store service (store-server.ts) as a {@link BackupStore}: what the operator and backup Jobs use when the
 * backups live on the volume the service mounts. node:http rather than a client library: a backup Job loads nothing
 * it does not need, and a streamed upload is a pipe into the request.
 */

/** Where the service answers: its base URL, the name its certificate must carry, and the certificate to trust. */
export interface StoreEndpoint {
  url: string;
  /** Checked against the certificate instead of the URL's host (an address from the EndpointSlice). */
  serverName?: string;
  /** PEM certificates to trust for an https URL; default: the system's. */
  ca?: string;
}

/** Finds the service anew (store-endpoint.ts follows its EndpointSlices, so a restarted service is found again). */
export interface StoreEndpointSource {
  current(): Promise<StoreEndpoint>;
  /** Called when the endpoint could not be reached: look again next time. */
  forget(): void;
}

export interface RemoteStoreOptions {
  /** Where the service is: a fixed endpoint (a backup Job's), or a source asked before each request (the operator's). */
  endpoint: StoreEndpoint | StoreEndpointSource;
  /** A ServiceAccount token for the service's audience, read anew for each request (the kubelet rotates it). */
  token: () => Promise<string>;
}

export class RemoteStoreError extends BackupStoreError {
  override name = 'RemoteStoreError';
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}


async function readAll(response: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/**
 * The chunks of `data` for the body of `request`. Once the service has answered or the connection has failed, the rest
 * is not wanted: the source is closed at once, even while it waits for its next chunk (pg_dump waiting for a lock),
 * instead of when that chunk comes. Only what the source's own next() throws, before that, is the source's error
 * (`onSourceError`): pg_dump's, which run-backup.ts tells apart from the store's.
 *
 * Not `yield* data`: when the request fails, Readable.from throws the request's error into this generator, and yield*
 * would pass it on to the source's iterator, which (like the tee's branches) need not have a throw method; the
 * TypeError that follows would hide why the request failed.
 */
function uploadSource(request: ClientRequest, data: AsyncIterable<Uint8Array>, onSourceError: (error: Error) => void): AsyncGenerator<Uint8Array> {
  const chunks = data[Symbol.asyncIterator]();
  // A property, not a variable: it is set by the request's events, outside this function's flow.
  const upload = { abandoned: false };
  const abandon = (): void => {
    if (upload.abandoned) return;
    upload.abandoned = true;
    Promise.resolve(chunks.return?.()).catch(() => undefined);
  };
  request.once('response', abandon);
  request.once('error', abandon);
  return (async function* () {
    try {
      for (;;) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await chunks.next();
        } catch (error) {
          if (!upload.abandoned) onSourceError(error as Error);
          throw error;
        }
        if (next.done === true) return;
        yield next.value;
      }
    } finally {
      abandon();
    }
  })();
}

export class RemoteBackupStore implements BackupStore {
  readonly #options: RemoteStoreOptions;
  /** The last endpoint used, for messages. */
  #origin = 'the backup store service';

  constructor(options: RemoteStoreOptions) {
    this.#options = options;
  }

  async #endpoint(): Promise<{ url: URL; serverName: string | undefined; ca: string | undefined }> {
    const { endpoint } = this.#options;
    const found = 'current' in endpoint ? await endpoint.current() : endpoint;
    const url = new URL(found.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BackupStoreError(`the backup store URL ${found.url} must be http:// or https://`);
    this.#origin = url.origin;
    return { url, serverName: found.serverName, ca: found.ca };
  }

  /** Sends `route` with `body` and resolves to the answer once its status line is in; a refusal throws what it said. */
  async #send(route: StoreRequest, body?: AsyncIterable<Uint8Array> | string, signal?: AbortSignal): Promise<IncomingMessage> {
    const { method, path } = routeOf(route);
    const { url, serverName, ca } = await this.#endpoint();
    const token = await this.#options.token();
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(new URL(path, url), {
      method,
      // The certificate names the Service; the connection goes to the address its EndpointSlice gave.
      ...(serverName === undefined ? {} : { servername: serverName }),
      headers: { authorization: `Bearer ${token}`, ...(typeof body === 'string' ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
      ...(ca === undefined ? {} : { ca }),
      ...(signal === undefined ? {} : { signal }),
    });
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
    });
    // Looked at below, after the body is sent; until then a failure must not count as unhandled.
    answered.catch(() => undefined);
    // The source's own error (pg_dump's) is passed on as it is: run-backup.ts tells the stages apart by it.
    let sourceError: Error | undefined;
    try {
      if (body === undefined || typeof body === 'string') {
        request.end(body);
        return await this.#checked(await answered, route);
      }
      const source = uploadSource(request, body, (error) => { sourceError = error; });
      // Streamed: if the source throws (pg_dump failed), the request is broken off before its last chunk and the
      // service discards what it received. A refusal may come before the body is sent: then that answer is the error.
      const failure = await pipeline(Readable.from(source, { objectMode: false }), request).then(() => undefined, (error: unknown) => error as Error);
      if (failure === undefined) return await this.#checked(await answered, route);
      const response = await answered.catch(() => undefined);
      if (response !== undefined && (response.statusCode ?? 0) >= 300) return await this.#checked(response, route);
      throw failure;
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason as Error;
      if (sourceError !== undefined) throw sourceError;
      throw this.#described(error);
    }
  }

  async #checked(response: IncomingMessage, route: StoreRequest): Promise<IncomingMessage> {
    const status = response.statusCode ?? 0;
    if (status < 300) return response;
    const text = await readAll(response);
    let message: string;
    try {
      message = (JSON.parse(text) as StoreErrorBody).error;
    } catch {
      message = text.slice(0, 200);
    }
    throw new RemoteStoreError(`the backup store at ${this.#origin} refused ${route.operation} (${status}): ${message}`, status);
  }

  #described(error: unknown): Error {
    if (error instanceof RemoteStoreError) return error;
    const e = error as NodeJS.ErrnoException;
    if (e.name === 'AbortError') return e;
    if (isUnreachable(e.code)) {
      const { endpoint } = this.#options;
      if ('forget' in endpoint) endpoint.forget();
      return new RemoteStoreError(`cannot reach the backup store at ${this.#origin} (${e.code}): check that the postgresql-backup-store Deployment is running and its Service reachable from this pod`, undefined, { cause: error });
    }
    if (isUntrustedCertificate(e.code)) {
      return new RemoteStoreError(`the backup store at ${this.#origin} presented a certificate that was not accepted (${e.code})`, undefined, { cause: error });
    }
    return new RemoteStoreError(`the backup store at ${this.#origin}: ${e.message}`, undefined, { cause: error });
  }

  async #json<T>(route: StoreRequest, body?: string, signal?: AbortSignal): Promise<T> {
    const response = await this.#send(route, body, signal);
    try {
      return JSON.parse(await readAll(response)) as T;
    } catch (error) {
      throw this.#described(error);
    }
  }

  async write(key: BackupKey, data: AsyncIterable<Uint8Array>, options: { signal?: AbortSignal } = {}): Promise<StoredData> {
    checkBackupKey(key);
    const response = await this.#send({ operation: 'write', key }, data, options.signal);
    return JSON.parse(await readAll(response)) as StoredData;
  }

  async finalize(manifest: BackupManifest): Promise<void> {
    checkBackupKey(manifest.key);
    (await this.#send({ operation: 'finalize', key: manifest.key }, JSON.stringify(manifest))).resume();
  }

  async list(scope?: BackupScope): Promise<StoreListing> {
    if (scope !== undefined) checkScope(scope);
    return this.#json({ operation: 'list', ...(scope === undefined ? {} : { scope }) });
  }

  async manifest(key: BackupKey): Promise<BackupManifest | undefined> {
    checkBackupKey(key);
    try {
      return await this.#json<BackupManifest>({ operation: 'manifest', key });
    } catch (error) {
      if (error instanceof RemoteStoreError && error.status === 404) return undefined;
      throw error;
    }
  }

  read(key: BackupKey, options: { signal?: AbortSignal } = {}): AsyncIterable<Uint8Array> {
    checkBackupKey(key);
    return this.#stream(key, options.signal);
  }

  async *#stream(key: BackupKey, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
    const response = await this.#send({ operation: 'read', key }, undefined, signal);
    try {
      // A connection broken before the last chunk throws here: a short read is never taken for the whole dump.
      yield* response as AsyncIterable<Uint8Array>;
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason as Error;
      throw this.#described(error);
    }
  }

  async digest(key: BackupKey, options: { signal?: AbortSignal } = {}): Promise<Digest> {
    checkBackupKey(key);
    return this.#json({ operation: 'digest', key }, undefined, options.signal);
  }

  async verifyChecksum(key: BackupKey, options: { signal?: AbortSignal } = {}): Promise<ChecksumCheck> {
    checkBackupKey(key);
    return this.#json({ operation: 'verify', key }, undefined, options.signal);
  }

  async delete(key: BackupKey): Promise<void> {
    checkBackupKey(key);
    (await this.#send({ operation: 'delete', key })).resume();
  }

  async removeIncomplete(scope: BackupScope): Promise<BackupKey[]> {
    checkScope(scope);
    return this.#json({ operation: 'sweep', scope });
  }
}
