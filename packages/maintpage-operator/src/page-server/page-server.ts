import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PageServerOptions } from './flags.ts';
import type { Log } from './log.ts';
import { builtInPageHtml, maintenanceJson, type MaintenanceInfo } from './maintenance-response.ts';
import { negotiateMediaType } from './negotiate.ts';
import { PageFile } from './page-file.ts';
import { retryAfterSeconds } from './retry-after.ts';

/**
 * The built-in maintenance page server. Every path, for every method, answers `503 Service Unavailable` with
 * `Retry-After` (RFC 9110 §15.6.4: crawlers keep the site's ranking, clients know when to come back; a 200 page would
 * be indexed in place of the site), `Cache-Control: no-store` (no cache keeps serving the page after maintenance) and
 * HTML or JSON by `Accept`. Only `/healthz` answers 200, for the kubelet's probes.
 */

export const HEALTH_PATH = '/healthz';

/** How long in-flight requests may take to finish after SIGTERM; well inside the default 30 s grace period. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

const OFFERED_TYPES = ['text/html', 'application/json'] as const;

export interface PageServerDependencies {
  log: Log;
  /** The clock, for Retry-After; tests fix it. */
  now?: () => Date;
}

export interface RunningPageServer {
  /** Where it listens; with `--port=0`, the port the system chose. */
  address: AddressInfo;
  /** Stops accepting connections, lets in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), stops watching. */
  close(): Promise<void>;
}

export async function startPageServer(
  options: PageServerOptions,
  { log, now = () => new Date() }: PageServerDependencies,
): Promise<RunningPageServer> {
  const pageFile = options.contentFile === undefined ? undefined : await PageFile.open(options.contentFile, log);
  let closing = false;

  function respond(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?', 1)[0];
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    if (closing) response.setHeader('Connection', 'close');
    let status: number;
    let body: string;
    if (path === HEALTH_PATH) {
      status = 200;
      body = 'ok\n';
      response.setHeader('Content-Type', 'text/plain; charset=utf-8');
    } else {
      const time = now();
      const seconds = retryAfterSeconds(time, options.retryAfterUntil, options.retryAfterSeconds);
      const until =
        options.retryAfterUntil !== undefined && options.retryAfterUntil > time ? options.retryAfterUntil : undefined;
      const info: MaintenanceInfo = { message: options.message, retryAfterSeconds: seconds, until };
      // A client that accepts neither representation still gets the page: better than a 406 (RFC 9110 allows it).
      const type = negotiateMediaType(request.headers.accept, OFFERED_TYPES) ?? 'text/html';
      status = 503;
      response.setHeader('Retry-After', String(seconds));
      response.setHeader('Vary', 'Accept');
      if (type === 'application/json') {
        body = maintenanceJson(info);
        response.setHeader('Content-Type', 'application/json');
      } else {
        body = pageFile?.html ?? builtInPageHtml(info);
        response.setHeader('Content-Type', 'text/html; charset=utf-8');
      }
    }
    response.statusCode = status;
    response.setHeader('Content-Length', Buffer.byteLength(body));
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  const server = createServer(respond);
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  log('info', 'listening', { address: address.address, port: address.port, page: options.contentFile ?? 'built-in' });

  return {
    address,
    async close() {
      closing = true;
      pageFile?.close();
      const closed = new Promise<void>((resolve) => server.close(() => { resolve(); }));
      // close() also ends idle keep-alive connections; busy ones get SHUTDOWN_TIMEOUT_MS to finish.
      const deadline = setTimeout(() => { server.closeAllConnections(); }, SHUTDOWN_TIMEOUT_MS);
      await closed;
      clearTimeout(deadline);
      await pageFile?.settled();
    },
  };
}
