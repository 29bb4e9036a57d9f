import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A named health check: resolves to undefined when healthy, or a reason when not. */
export type Check = () => string | undefined | Promise<string | undefined>;

export type Route = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Decides whether a request may be served: undefined to go on, or the status and plain-text body to answer with. */
export type Guard = (req: IncomingMessage) => Promise<{ status: number; body: string } | undefined>;

export interface ProbeServerOptions {
  /** Serve HTTPS with this PEM certificate and key (default: plain HTTP). */
  tls?: { cert: string; key: string };
  /** Asked before every request, whatever its path (default: none). */
  guard?: Guard;
  /** Serve `/healthz` and `/readyz` (default true). */
  probes?: boolean;
}

/**
 * Serves `/healthz` and `/readyz` with controller-runtime's behaviour (`?verbose` lists every check, `?exclude=name`
 * skips one; 200 "ok" or 500 with the failing checks), plus any extra routes (metrics, debug).
 */
export class ProbeServer {
  readonly #server: Server | HttpsServer;
  readonly #checks: Record<'healthz' | 'readyz', Map<string, Check>> = { healthz: new Map(), readyz: new Map() };
  readonly #routes = new Map<string, Route>();
  readonly #guard: Guard | undefined;
  readonly #probes: boolean;

  constructor(options: ProbeServerOptions = {}) {
    const handle = (req: IncomingMessage, res: ServerResponse): void => { void this.#handle(req, res); };
    // Only HTTP/1.1 either way, as kubebuilder's default (--enable-http2=false).
    this.#server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle) : createServer(handle);
    this.#guard = options.guard;
    this.#probes = options.probes ?? true;
  }

  addCheck(kind: 'healthz' | 'readyz', name: string, check: Check): void {
    this.#checks[kind].set(name, check);
  }

  addRoute(path: string, route: Route): void {
    this.#routes.set(path, route);
  }

  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => { resolve(); });
    });
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => { resolve(); }));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://probe');
    try {
      const refusal = await this.#guard?.(req);
      if (refusal) {
        res.writeHead(refusal.status, { 'content-type': 'text/plain; charset=utf-8', ...(refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {}) }).end(refusal.body);
        return;
      }
      const kind = url.pathname.slice(1);
      if (this.#probes && (kind === 'healthz' || kind === 'readyz')) {
        await this.#respondChecks(this.#checks[kind], url, res);
        return;
      }
      const route = this.#routes.get(url.pathname);
      if (route) {
        await route(req, res);
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`${error instanceof Error ? error.message : String(error)}\n`);
    }
  }

  async #respondChecks(checks: Map<string, Check>, url: URL, res: ServerResponse): Promise<void> {
    const excluded = new Set(url.searchParams.getAll('exclude'));
    const results = await Promise.all([...checks].filter(([name]) => !excluded.has(name)).map(async ([name, check]) => [name, await check()] as const));
    const failed = results.filter(([, reason]) => reason !== undefined);
    const verbose = url.searchParams.has('verbose');
    if (failed.length === 0 && !verbose) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const lines = results.map(([name, reason]) => (reason === undefined ? `[+]${name} ok` : `[-]${name} failed: ${reason}`));
    const verdict = failed.length === 0 ? 'check passed' : `${url.pathname.slice(1)} check failed`;
    res.writeHead(failed.length === 0 ? 200 : 500, { 'content-type': 'text/plain' }).end(`${lines.join('\n')}\n${verdict}\n`);
  }
}
