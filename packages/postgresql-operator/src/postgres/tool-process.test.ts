import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, isProcessRunning } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';
import { executableOnPath } from './executable-on-path.ts';
import { PgToolError, startPgTool } from './tool-process.ts';

// Stand-ins for pg_dump / pg_restore: the module's contract is about processes and streams, not about PostgreSQL.
const sh = (script: string) => ({ path: '/bin/sh', args: ['-c', script], env: { PATH: process.env.PATH ?? '' } });

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function* bytes(total: number, chunk = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let sent = 0; sent < total; sent += chunk) {
    await nextTurn();
    yield Buffer.alloc(Math.min(chunk, total - sent), 7);
  }
}

async function collect(stream: AsyncIterable<Uint8Array> | null): Promise<string> {
  let text = '';
  for await (const chunk of stream ?? []) text += Buffer.from(chunk).toString();
  return text;
}

describe('startPgTool', () => {
  it('streams stdin through the tool and stdout back, resolving on exit 0', async () => {
    const tool = startPgTool({ ...sh('wc -c'), stdin: bytes(5 * 1024 * 1024), stdout: 'pipe' });
    expect((await collect(tool.stdout)).trim()).toBe(String(5 * 1024 * 1024));
    await expect(tool.exited).resolves.toBeUndefined();
  });

  it('fails with the exit code and the end of stderr, secrets masked', async () => {
    const tool = startPgTool({
      ...sh('echo "pg_dump: error: connection to server failed: password hunter2 rejected" >&2; exit 1'),
      stdout: 'ignore',
      secrets: ['hunter2'],
    });
    const error = await tool.exited.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PgToolError);
    expect(error).toMatchObject({
      tool: 'sh',
      exitCode: 1,
      message: 'sh exited with code 1: pg_dump: error: connection to server failed: password [REDACTED] rejected',
    });
  });

  it('keeps only the end of a long stderr', async () => {
    const tool = startPgTool({ ...sh('i=0; while [ $i -lt 3000 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 3'), stdout: 'ignore' });
    const error = (await tool.exited.catch((e: unknown) => e)) as PgToolError;
    expect(error.stderr.length).toBeLessThanOrEqual(16 * 1024);
    expect(error.stderr.endsWith('line 2999')).toBe(true);
  });

  it('reports a tool that cannot be started', async () => {
    const tool = startPgTool({ path: '/nonexistent/pg_dump', args: [], env: {}, stdout: 'ignore' });
    await expect(tool.exited).rejects.toThrow(/^pg_dump could not be started \(\/nonexistent\/pg_dump\): spawn \/nonexistent\/pg_dump ENOENT/);
  });

  it('treats a tool that exits 0 without reading all of its input as a failure', async () => {
    const tool = startPgTool({ ...sh('exit 0'), stdin: bytes(4 * 1024 * 1024), stdout: 'ignore' });
    await expect(tool.exited).rejects.toThrow('sh exited before reading all of its input');
  });

  it('succeeds when the tool read all of its input and exited before its stdin was closed', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'tool-'));
    const flag = join(directory, 'pid');
    // The source ends only once Node has reaped the tool, so stdin closes after the exit: the order a quick pg_restore
    // of a small dump can produce on a busy event loop.
    async function* input(): AsyncGenerator<Uint8Array> {
      yield Buffer.alloc(2000, 1);
      const pid = Number(await waitFor(async () => (await readFile(flag, 'utf8').catch(() => '')).trim() || undefined, { what: 'the pid' }));
      await waitFor(() => !isProcessRunning(pid), { what: 'the tool to exit and be reaped' });
    }
    const tool = startPgTool({ ...sh(`echo $$ > ${flag}; head -c 2000 > /dev/null`), stdin: input(), stdout: 'ignore' });
    try {
      await expect(tool.exited).resolves.toBeUndefined();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('kills the tool when its input source fails, and reports the source\'s error', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('some bytes');
      await nextTurn();
      throw new Error('store read failed');
    }
    const tool = startPgTool({ ...sh('cat > /dev/null; exec sleep 30'), stdin: failing(), stdout: 'ignore' });
    await expect(tool.exited).rejects.toThrow('store read failed');
  });

  it('runs the tool at the niceness asked for', async () => {
    // The tool reads its priority only after its input ended, and the priority is set before any input is written.
    const niceOf = async (niceness?: number): Promise<string> => {
      const tool = startPgTool({
        ...sh("cat > /dev/null; cut -d' ' -f19 /proc/self/stat"),
        stdin: bytes(1024),
        stdout: 'pipe',
        ...(niceness === undefined ? {} : { niceness }),
      });
      const printed = (await collect(tool.stdout)).trim();
      await tool.exited;
      return printed;
    };
    const own = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1]?.split(' ')[16];
    expect(await niceOf()).toBe(own);
    // A process may lower its children's priority, not raise it: a test run already below 10 stays where it is.
    expect(await niceOf(10)).toBe(String(Math.max(10, Number(own))));
  });

  it('runs the tool under stdbuf with the stdout buffer asked for', async () => {
    // sed writes through C stdio, as pg_dump does. Given 5,000 bytes of lines while its stdin stays open, it has written
    // one full buffer, 4 KiB, by the time it waits for more input; with a 64 KiB buffer it has written none of it yet.
    const stdbuf = await executableOnPath('stdbuf', process.env.PATH ?? '');
    if (stdbuf === undefined) throw new Error('this test needs coreutils\' stdbuf on PATH');
    const readSyscall = { x64: 0, arm64: 63 }[process.arch as 'x64' | 'arm64'];
    const input = Buffer.from(`${'x'.repeat(99)}\n`.repeat(50));
    const writtenWhileWaiting = async (stdoutBuffer?: { stdbuf: string; bytes: number }): Promise<number> => {
      const directory = await mkdtemp(join(tmpdir(), 'tool-'));
      const pidFile = join(directory, 'pid');
      let written: number | undefined;
      async function* lines(): AsyncGenerator<Uint8Array> {
        yield input;
        const pid = (await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() || undefined, { what: 'the pid' }));
        // Blocked in read(2) on stdin: every byte written so far has been read and processed.
        await waitFor(async () => (await readFile(`/proc/${pid}/syscall`, 'utf8')).startsWith(`${readSyscall} 0x0 `), {
          what: 'sed to wait for more input',
        });
        written = Number(/wchar: (\d+)/.exec(await readFile(`/proc/${pid}/io`, 'utf8'))?.[1]);
      }
      const tool = startPgTool({
        ...sh(`echo $$ > ${pidFile}; exec sed -n p`),
        stdin: lines(),
        stdout: 'pipe',
        ...(stdoutBuffer === undefined ? {} : { stdoutBuffer }),
      });
      try {
        expect(await collect(tool.stdout)).toBe(input.toString());
        await tool.exited;
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
      return written ?? -1;
    };
    // The counts include what the process wrote before it became sed (the pid file), the same in both runs.
    const before = await writtenWhileWaiting({ stdbuf, bytes: 64 * 1024 });
    expect(before).toBeLessThan(100);
    expect(await writtenWhileWaiting()).toBe(before + 4096);
  });

  it('kills the tool on abort', async () => {
    const controller = new AbortController();
    const tool = startPgTool({ ...sh('echo started; exec sleep 30'), stdout: 'pipe', signal: controller.signal });
    for await (const _chunk of tool.stdout ?? []) {
      controller.abort(new Error('shutting down'));
    }
    await expect(tool.exited).rejects.toThrow('shutting down');
  });
});
