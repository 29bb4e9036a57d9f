import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';

/**
 * The piece of the kubelet API that `kubectl logs` uses: the API server proxies
 * /api/v1/namespaces/NS/pods/POD/log to the node's /containerLogs/NS/POD/CONTAINER. With it, `kubectl logs`
 * (also `-f`, `--tail` and `--previous`) works against the local node exactly as against a real one.
 */
export async function startLogServer(options: { certFile: string; keyFile: string; logDirOf: (namespace: string, pod: string) => string | undefined }): Promise<{ server: Server; port: number }> {
  const [cert, key] = await Promise.all([readFile(options.certFile), readFile(options.keyFile)]);
  const server = createServer({ cert, key }, (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://node');
      const match = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      const dir = match ? options.logDirOf(decodeURIComponent(match[1] ?? ''), decodeURIComponent(match[2] ?? '')) : undefined;
      if (!match || !dir) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      const container = decodeURIComponent(match[3] ?? '');
      const previous = url.searchParams.get('previous') === 'true';
      const file = join(dir, containerLogFile(container, previous ? 'previous' : 'current'));
      let size: number;
      try {
        size = (await stat(file)).size;
      } catch {
        // The kubelet's answer, which kubectl shows as "Error from server (BadRequest): ...".
        if (previous) res.writeHead(400, { 'content-type': 'text/plain' }).end(`previous terminated container "${container}" in pod "${decodeURIComponent(match[2] ?? '')}" not found\n`);
        else res.writeHead(404, { 'content-type': 'text/plain' }).end(`no logs for container ${container} yet\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      const tail = url.searchParams.get('tailLines');
      if (tail !== null) {
        const lines = (await readFile(file, 'utf8')).split('\n');
        if (lines.at(-1) === '') lines.pop();
        res.write(lines.slice(-Number(tail) || lines.length).map((l) => `${l}\n`).join(''));
      } else if (size > 0) {
        // (createReadStream with end: -1 throws; an empty log has nothing to send yet.)
        await new Promise<void>((resolve) => {
          const done = (): void => { resolve(); };
          createReadStream(file, { end: size - 1 }).on('end', done).on('error', done).pipe(res, { end: false });
        });
      }
      if (url.searchParams.get('follow') !== 'true') {
        res.end();
        return;
      }
      // Follow: send what is appended until the client goes away.
      let offset = size;
      const handle = await open(file, 'r');
      const timer = setInterval(() => {
        void (async () => {
          const { size: now } = await handle.stat();
          if (now <= offset) return;
          const buffer = Buffer.alloc(now - offset);
          await handle.read(buffer, 0, buffer.length, offset);
          offset = now;
          res.write(buffer);
        })();
      }, 250);
      res.on('close', () => {
        clearInterval(timer);
        void handle.close();
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

/** A container's log file in its pod's log directory: the running (or last) one, or the one before its last restart. */
export function containerLogFile(container: string, which: 'current' | 'previous' = 'current'): string {
  return which === 'current' ? `${container}.log` : `${container}.previous.log`;
}
