import { createServer, type Server } from 'node:net';

/**
 * Asks the kernel for `count` distinct free TCP ports on `host` (tests run many clusters side by side). Every port is
 * held until all are known: one port asked for and released at a time may come back for the next ask, and two
 * processes told the same port (etcd's client and peer listeners once were) leave one of them unable to bind.
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      server.unref();
      servers.push(server);
      ports.push(await new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, host, () => {
          const address = server.address();
          if (address && typeof address === 'object') resolve(address.port);
          else reject(new Error('could not determine a free port'));
        });
      }));
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => {
      if (server.listening) server.close(() => { resolve(); });
      else resolve();
    })));
  }
}

/** One free TCP port on `host`. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [port] = await freePorts(1, host);
  if (port === undefined) throw new Error('could not determine a free port');
  return port;
}
