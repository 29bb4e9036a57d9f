import { pgToolEnvironment, type ConnectionParameters } from '../postgres/connection.ts';
import { executableOnPath } from '../postgres/executable-on-path.ts';
import { startPgTool } from '../postgres/tool-process.ts';
import { coalesce } from './coalesce.ts';

/**
 * How long pg_dump waits for a table lock. Without a bound a backup hangs behind any long-held exclusive lock (a
 * migration, a VACUUM FULL); with it the backup fails with a message naming the lock, and the next one tries again.
 */
export const LOCK_WAIT_TIMEOUT = '60s';

/**
 * pg_dump writes its archive through C stdio, which writes into a pipe 4 KiB at a time: a 20 MiB dump is 5,000 writes,
 * each waking the operator to read 4 KiB while pg_dump is still compressing. Under coreutils' stdbuf (in every
 * Debian-based image, the operator's included) pg_dump writes 64 KiB at a time, a pipe's capacity: 16 times fewer
 * wake-ups and reads, less garbage collection in the operator and fewer writes into pg_restore's pipe. Where stdbuf
 * is missing, the stream joins pg_dump's writes into chunks of the same size (coalesce.ts), which saves the per-chunk
 * work downstream only.
 */
const CHUNK_BYTES = 64 * 1024;

export interface DumpOptions {
  /** Path of the pg_dump of the server's major (see locatePgTool). */
  pgDump: string;
  connection: ConnectionParameters;
  signal?: AbortSignal;
}

/**
 * `pg_dump --format=custom` of `connection.database` as a stream of chunks of at least 64 KiB (the last may be
 * smaller). The stream ends only after pg_dump exited successfully; if pg_dump fails (server gone, connection killed,
 * lock timeout) the stream throws a PgToolError after the bytes written so far, so a consumer that publishes only on a
 * clean end never publishes a partial dump. A consumer that stops early, or an abort, kills pg_dump.
 */
export async function* dumpDatabase(options: DumpOptions): AsyncGenerator<Uint8Array, void, undefined> {
  const { pgDump, connection, signal } = options;
  const environment = pgToolEnvironment(connection);
  const stdbuf = await executableOnPath('stdbuf', environment.PATH ?? '');
  const dump = startPgTool({
    path: pgDump,
    args: ['--format=custom', '--no-password', `--lock-wait-timeout=${LOCK_WAIT_TIMEOUT}`],
    env: environment,
    stdout: 'pipe',
    ...(stdbuf === undefined ? {} : { stdoutBuffer: { stdbuf, bytes: CHUNK_BYTES } }),
    secrets: [connection.password],
    signal,
  });
  let finished = false;
  try {
    if (dump.stdout === null) throw new Error('pg_dump was started without a stdout pipe');
    for await (const chunk of coalesce(dump.stdout as AsyncIterable<Uint8Array>, CHUNK_BYTES)) yield chunk;
    await dump.exited;
    finished = true;
  } finally {
    if (!finished) {
      dump.kill();
      await dump.exited.catch(() => undefined);
    }
  }
}
