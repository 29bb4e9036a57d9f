import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { maskSecrets } from './connection.ts';

/**
 * Runs pg_dump or pg_restore as a child process whose input and output are streams (a dump is never held in memory),
 * which is killed when the caller aborts or stops reading, and whose failure is an error carrying the end of its
 * stderr, passwords masked.
 */

/** How much of stderr an error keeps: enough for pg's last messages, bounded for a tool that prints a lot. */
const STDERR_TAIL_BYTES = 16 * 1024;

export class PgToolError extends Error {
  override name = 'PgToolError';
  /** Basename of the tool, e.g. `pg_restore`. */
  readonly tool: string;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The end of what the tool wrote to stderr, secrets masked. */
  readonly stderr: string;

  constructor(tool: string, exitCode: number | null, signal: NodeJS.Signals | null, stderr: string, problem?: string) {
    const how = problem ?? (signal === null ? `exited with code ${exitCode ?? 'unknown'}` : `was killed by ${signal}`);
    super(`${tool} ${how}${stderr === '' ? '' : `: ${stderr}`}`);
    this.tool = tool;
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderr = stderr;
  }
}

export interface PgToolOptions {
  /** Path of the program. */
  path: string;
  args: readonly string[];
  /** The child's whole environment (nothing is inherited). */
  env: NodeJS.ProcessEnv;
  /** Streamed to stdin, with back-pressure; stdin is closed at once when absent. */
  stdin?: AsyncIterable<Uint8Array>;
  /** 'pipe' when the caller reads `stdout`; 'ignore' discards it. */
  stdout: 'pipe' | 'ignore';
  /** Aborting kills the tool (SIGTERM: pg_dump and pg_restore cancel their server query and exit). */
  signal?: AbortSignal;
  /** Masked in errors (the password). */
  secrets?: readonly string[];
  /** The tool's nice value (1-19: below normal CPU priority), when the operator's own is not already lower; default its own. */
  niceness?: number;
  /**
   * Runs the tool under coreutils' stdbuf (at `stdbuf`) with a C stdio buffer of `bytes` for its stdout. A program
   * writing through stdio into a pipe writes 4 KiB (the pipe's block size) at a time, and every write wakes the reader.
   */
  stdoutBuffer?: { stdbuf: string; bytes: number };
}

export interface PgToolProcess {
  /** The tool's stdout when `stdout: 'pipe'`, else null. It ends when the tool exits, whether it succeeded or not. */
  readonly stdout: Readable | null;
  /**
   * Settles once the tool has exited: resolves for exit code 0 with all of `stdin` consumed. Rejects with the abort
   * reason, with the error of the `stdin` source, or with a {@link PgToolError}.
   */
  readonly exited: Promise<void>;
  /** Stops the tool; `exited` then rejects. */
  kill(): void;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

function toolName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function startPgTool(options: PgToolOptions): PgToolProcess {
  const { path, args, env, stdin, signal, secrets = [] } = options;
  const tool = toolName(path);
  signal?.throwIfAborted();
  const [file, fileArgs] =
    options.stdoutBuffer === undefined
      ? [path, args]
      : [options.stdoutBuffer.stdbuf, [`--output=${options.stdoutBuffer.bytes}`, path, ...args]];
  const child = spawn(file, fileArgs, { env, stdio: ['pipe', options.stdout, 'pipe'] });
  if (options.niceness !== undefined && child.pid !== undefined) {
    try {
      // Never above this process's own priority: a root process at nice 19 (a test run under `nice`) could raise it.
      setPriority(child.pid, Math.max(options.niceness, getPriority()));
    } catch {
      // It exited already (its exit is reported below), or the system refuses: a priority is a preference, not a need.
    }
  }
  const { stdin: input, stderr } = child;
  if (input === null || stderr === null) throw new Error(`${tool}: spawn gave no stdin or stderr pipe`);

  let stderrTail = Buffer.alloc(0);
  stderr.on('data', (chunk: Buffer) => {
    stderrTail = Buffer.concat([stderrTail, chunk]);
    if (stderrTail.length > STDERR_TAIL_BYTES) stderrTail = stderrTail.subarray(stderrTail.length - STDERR_TAIL_BYTES);
  });

  let killed = false;
  const kill = (): void => {
    killed = true;
    child.kill('SIGTERM');
  };
  const onAbort = (): void => {
    kill();
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  // Errors of the source feeding stdin are the caller's errors, reported as such. Whether the tool got all of its
  // input is judged by the source having been read to its end, not by the pipe closing cleanly: Node destroys a
  // child's stdin when the child exits, so a tool that read everything and exited before stdin's 'finish' (a quick
  // pg_restore of a small dump on a busy event loop) breaks the pipeline although nothing was lost.
  let sourceError: { error: unknown } | undefined;
  let sourceConsumed = stdin === undefined;
  async function* trackSource(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    try {
      yield* source;
      sourceConsumed = true;
    } catch (error) {
      sourceError = { error };
      throw error;
    }
  }
  const fed: Promise<void> =
    stdin === undefined
      ? (input.end(), Promise.resolve())
      : pipeline(trackSource(stdin), input).catch(() => {
          if (sourceError !== undefined) kill();
        });
  // EPIPE on stdin after the tool exited is expected: the exit code and sourceConsumed tell what happened.
  input.on('error', () => undefined);

  const exited = new Promise<void>((resolve, reject) => {
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('close', (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
      signal?.removeEventListener('abort', onAbort);
      void fed.then(() => {
        const stderr = maskSecrets(stderrTail.toString('utf8').trim(), secrets);
        if (spawnError !== undefined) {
          reject(new PgToolError(tool, exitCode, exitSignal, stderr, `could not be started (${path}): ${spawnError.message}`));
        } else if (signal?.aborted === true) {
          reject(asError(signal.reason));
        } else if (sourceError !== undefined) {
          reject(asError(sourceError.error));
        } else if (exitCode !== 0 || killed) {
          reject(new PgToolError(tool, exitCode, exitSignal, stderr));
        } else if (!sourceConsumed) {
          reject(new PgToolError(tool, exitCode, exitSignal, stderr, 'exited before reading all of its input'));
        } else {
          resolve();
        }
      });
    });
  });
  // Callers may only look at `exited` after consuming stdout; an early failure must not be an unhandled rejection.
  exited.catch(() => undefined);

  return { stdout: child.stdout, exited, kill };
}
