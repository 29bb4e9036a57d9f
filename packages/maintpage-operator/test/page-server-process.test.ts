import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request, Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@k8s-operators/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { SHUTDOWN_TIMEOUT_MS } from '../src/page-server/page-server.ts';

/** The page server as its image runs it: a separate Node process with flags, stopped by SIGTERM. */

const MAIN = fileURLToPath(new URL('../src/page-server/main.ts', import.meta.url));

interface PageServerProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function runPageServer(args: string[]): PageServerProcess {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

function logLines(stdout: string): { msg: string; port?: number }[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; port?: number });
}

/** A GET over `agent`, resolving with the status once the body has been read (leaving the socket idle, kept alive). */
function get(port: number, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
      response.resume();
      response.on('end', () => { resolve(response.statusCode ?? 0); });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the page server process', () => {
  it('serves, then on SIGTERM stops promptly even with an idle keep-alive connection, and exits 0', async () => {
    const server = runPageServer(['--port=0', '--bind-address=127.0.0.1', '--retry-after-seconds=60']);
    const port = await waitFor(() => logLines(server.stdout()).find((line) => line.msg === 'listening')?.port, {
      what: 'the page server to listen',
      timeoutMs: 30_000,
    });
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await get(port, agent)).toBe(503);
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const [code, signal] = await server.exited;
      expect({ code, signal, stderr: server.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
      // Had the idle connection held the server open, only the shutdown deadline would have ended it.
      expect(Date.now() - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
      expect(logLines(server.stdout()).map((line) => line.msg)).toEqual(['listening', 'shutting down', 'stopped']);
    } finally {
      agent.destroy();
    }
  });

  it('refuses bad flags with a message and exit status 2', async () => {
    const server = runPageServer(['--retry-after-until=tomorrow']);
    const [code] = await server.exited;
    expect(code).toBe(2);
    expect(server.stderr()).toContain(
      'maintpage-page-server: --retry-after-until must be an RFC 3339 time with a zone, such as 2026-03-01T22:00:00Z, got "tomorrow"',
    );
  });

  it('logs why it cannot start, and exits 1', async () => {
    const first = runPageServer(['--port=0', '--bind-address=127.0.0.1']);
    const port = await waitFor(() => logLines(first.stdout()).find((line) => line.msg === 'listening')?.port, {
      what: 'the first page server to listen',
      timeoutMs: 30_000,
    });
    const second = runPageServer([`--port=${port}`, '--bind-address=127.0.0.1']);
    const [code] = await second.exited;
    expect(code).toBe(1);
    expect(logLines(second.stdout())).toContainEqual(expect.objectContaining({ msg: 'cannot start' }));
    first.child.kill('SIGTERM');
    expect((await first.exited)[0]).toBe(0);
  });
});
