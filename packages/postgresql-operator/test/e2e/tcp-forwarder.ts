import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder in front of a server, to take it away and bring it back: `cut()` resets every open connection and
 * stops listening (new connections are refused, as when a store is down), `restore()` listens on the same port again.
 */
export class TcpForwarder {
  readonly #host: string;
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  private constructor(host: string, target: { host: string; port: number }) {
    this.#host = host;
    this.#target = target;
  }

  /** Listens on `host` (a free port) and forwards to `target`. */
  static async start(host: string, target: URL): Promise<TcpForwarder> {
    const forwarder = new TcpForwarder(host, { host: target.hostname, port: Number(target.port) });
    await forwarder.restore();
    return forwarder;
  }

  /** The forwarder's address, as `scheme://host:port`. */
  url(scheme: string): string {
    return `${scheme}://${this.#host}:${this.#port}`;
  }

  restore(): Promise<void> {
    if (this.#server !== undefined) return Promise.resolve();
    const server = createServer((client) => {
      const upstream = createConnection(this.#target);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream).pipe(client);
    });
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, this.#host, () => {
        const address = server.address();
        if (address !== null && typeof address === 'object') this.#port = address.port;
        resolve();
      });
    });
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.resetAndDestroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  }
}
