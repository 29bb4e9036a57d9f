import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { MetricsAuthorizer, TokenAuthenticator } from '@k8s-operators/controller-core';
import type { createLogger } from '@k8s-operators/controller-core/log';
import { InvalidManifestError, parseManifest } from '../stores/manifest.ts';
import type { BackupStoreMetrics } from '../metrics/backup-store-metrics.ts';
import { BackupStoreError, formatBackupKey, type BackupStore } from '../stores/store.ts';
import { callerOf, refusal, type StoreCaller } from './store-access.ts';
import { parseRoute, StoreRouteError, type StoreErrorBody, type StoreRequest } from './store-protocol.ts';

/**
 * The backup store service: the backup volume's {@link BackupStore} served over HTTP (store-protocol.ts), so the
 * volume is mounted by this one small Deployment instead of the operator, whose replicas then share nothing on disk,
 * and backup Jobs in any namespace write to it. Every request carries a ServiceAccount token bound to the service's
 * audience; the API server says whose it is, store-access.ts what that caller may do.
 */

export interface StoreServerOptions {
  store: BackupStore;
  /** Checks callers' tokens; give it the service's audience, so only tokens projected for this service count. */
  authenticator: Pick<TokenAuthenticator, 'authenticate'>;
  /** The operator's user name, `system:serviceaccount:<namespace>:<name>`: the one caller allowed everything. */
  operatorUsername: string;
  logger: ReturnType<typeof createLogger>;
  /**
   * Served on `GET /metrics` to callers the authorizer lets through: any ServiceAccount or user that may get the
   * non-resource URL /metrics (Prometheus with the operator's metrics-reader ClusterRole), not only the service's
   * audience. Without it there is no /metrics.
   */
  metrics?: { recorder: BackupStoreMetrics; authorizer: Pick<MetricsAuthorizer, 'check'> };
}

/** A manifest is a few hundred bytes; anything near this is not one. */
const MAX_MANIFEST_BYTES = 64 * 1024;

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

const isNotFound = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

async function readSmallBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_MANIFEST_BYTES) throw new HttpError(413, `a manifest is at most ${MAX_MANIFEST_BYTES} bytes`);
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Passes `source` through, counting its bytes. */
async function* counted(source: AsyncIterable<Uint8Array>, count: (bytes: number) => void): AsyncIterable<Uint8Array> {
  for await (const chunk of source) {
    count(chunk.byteLength);
    yield chunk;
  }
}

/** Streams the data of a backup; the status line goes out only once the first bytes (or the end) are there. */
async function sendData(response: ServerResponse, data: AsyncIterable<Uint8Array>, count: (bytes: number) => void): Promise<void> {
  const iterator = data[Symbol.asyncIterator]();
  let first = await iterator.next();
  response.writeHead(200, { 'content-type': 'application/octet-stream' });
  try {
    while (first.done !== true) {
      count(first.value.byteLength);
      if (!response.write(first.value)) await new Promise((resolve) => response.once('drain', resolve));
      first = await iterator.next();
    }
  } catch (error) {
    // Headers are out: breaking the connection without the last chunk is how the client learns the data is incomplete.
    response.destroy(error as Error);
    throw error;
  }
  response.end();
}

export function storeRequestListener(options: StoreServerOptions): RequestListener {
  const { store, authenticator, operatorUsername, logger, metrics } = options;
  const received = (bytes: number): void => { metrics?.recorder.received(bytes); };
  const sent = (bytes: number): void => { metrics?.recorder.sent(bytes); };

  const serveMetrics = async (request: IncomingMessage, response: ServerResponse, served: NonNullable<typeof metrics>): Promise<void> => {
    const refused = await served.authorizer.check(request);
    if (refused !== undefined) {
      response.writeHead(refused.status, { 'content-type': 'text/plain; charset=utf-8' }).end(refused.body);
      return;
    }
    const text = await served.recorder.registry.metrics();
    response.writeHead(200, { 'content-type': served.recorder.registry.contentType }).end(text);
  };

  const serve = async (caller: StoreCaller, route: StoreRequest, request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> => {
    switch (route.operation) {
      case 'write':
        sendJson(response, 200, await store.write(route.key, counted(request as AsyncIterable<Uint8Array>, received), { signal }));
        return;
      case 'finalize': {
        let manifest;
        try {
          manifest = parseManifest(await readSmallBody(request));
        } catch (error) {
          if (error instanceof InvalidManifestError) throw new HttpError(400, error.message);
          throw error;
        }
        if (formatBackupKey(manifest.key) !== formatBackupKey(route.key)) throw new HttpError(400, `the manifest is of ${formatBackupKey(manifest.key)}, not of ${formatBackupKey(route.key)}`);
        await store.finalize(manifest);
        response.writeHead(204).end();
        return;
      }
      case 'manifest': {
        const manifest = await store.manifest(route.key);
        if (manifest === undefined) throw new HttpError(404, `${formatBackupKey(route.key)} is not a complete backup in the store`);
        sendJson(response, 200, manifest);
        return;
      }
      case 'read':
        await sendData(response, store.read(route.key, { signal }), sent);
        return;
      case 'digest':
        sendJson(response, 200, await store.digest(route.key, { signal }));
        return;
      case 'verify':
        sendJson(response, 200, await store.verifyChecksum(route.key, { signal }));
        return;
      case 'delete':
        // A Job discards what its failed backup stored; what was published only the operator deletes (retention).
        if (caller.kind === 'backup-job' && (await store.manifest(route.key)) !== undefined) {
          throw new HttpError(403, `${caller.username} may not delete ${formatBackupKey(route.key)}: it is a published backup, which only the operator deletes`);
        }
        await store.delete(route.key);
        response.writeHead(204).end();
        return;
      case 'list':
        sendJson(response, 200, await store.list(route.scope));
        return;
      case 'sweep':
        sendJson(response, 200, await store.removeIncomplete(route.scope));
        return;
    }
  };

  return (request, response) => {
    const abort = new AbortController();
    // A caller that goes away (a stopped Job) must not leave a write running: the store then discards it.
    response.once('close', () => { if (!response.writableFinished) abort.abort(new Error('the caller closed the connection')); });
    const url = new URL(request.url ?? '/', 'http://store');
    // For the kubelet's probes, which carry no token: says nothing about the backups.
    if (url.pathname === '/healthz' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (url.pathname === '/metrics' && metrics !== undefined && (request.method === 'GET' || request.method === 'HEAD')) {
      serveMetrics(request, response, metrics).catch((error: unknown) => {
        logger.warn({ error: (error as Error).message }, 'cannot serve /metrics');
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${(error as Error).message}\n`);
      });
      return;
    }
    const started = performance.now();
    let who = 'unauthenticated';
    let route: StoreRequest | undefined;
    const handle = async (): Promise<void> => {
      route = parseRoute(request.method ?? 'GET', url.pathname);
      if (route === undefined) throw new HttpError(404, `no such route: ${request.method ?? ''} ${url.pathname}`);
      const header = request.headers.authorization ?? '';
      const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
      if (token === '') throw new HttpError(401, 'no bearer token: present a ServiceAccount token for this service\'s audience');
      const authentication = await authenticator.authenticate(token);
      if ('error' in authentication) throw new HttpError(401, `the token was not accepted (${authentication.error}): present a ServiceAccount token projected for this service's audience`);
      const { username } = authentication.user;
      who = username;
      const caller = callerOf(username, operatorUsername);
      if (caller === undefined) throw new HttpError(403, `${username} may not use the backup store`);
      const refused = refusal(caller, route);
      if (refused !== undefined) throw new HttpError(403, refused);
      await serve(caller, route, request, response, abort.signal);
    };
    const record = (status: number): void => { metrics?.recorder.served(route?.operation ?? 'unknown', status, (performance.now() - started) / 1000); };
    handle().then(
      () => {
        record(response.statusCode);
        logger.debug({ caller: who, operation: route?.operation, path: url.pathname, ms: Math.round(performance.now() - started) }, 'served');
      },
      (error: unknown) => {
        const status = error instanceof HttpError ? error.status
          : error instanceof StoreRouteError ? 400
          : isNotFound(error) ? 404
          // The store refused (a backup that exists, data that does not match its manifest): the caller's mistake.
          : error instanceof BackupStoreError ? 409
          : 500;
        const message = status === 404 && !(error instanceof HttpError) && route !== undefined && 'key' in route
          ? `${formatBackupKey(route.key)} has no data in the store`
          : (error as Error).message;
        record(status);
        const log = status >= 500 ? logger.error.bind(logger) : logger.warn.bind(logger);
        log({ caller: who, operation: route?.operation, path: url.pathname, status, error: message }, 'refused');
        if (response.headersSent) {
          response.destroy();
          return;
        }
        const body: StoreErrorBody = { error: message };
        // The request body may still be arriving (a refused write): answer, then close the connection.
        response.setHeader('connection', 'close');
        sendJson(response, status, body);
      },
    );
  };
}
