import { pgToolEnvironment, type ConnectionParameters } from '../postgres/connection.ts';
import { startPgTool } from '../postgres/tool-process.ts';
import { coalesce } from './coalesce.ts';

/**
 * How long pg_dump waits for a table lock. Without a bound a backup hangs behind any long-held exclusive lock (a
 * migration, a VACUUM FULL); with it the backup fails with a message naming the lock, and the next one tries again.
 */
export const LOCK_WAIT_TIMEOUT = '60s';

/** The smallest chunk the stream yields but the last: 64 KiB, a pipe's capacity, instead of pg_dump's 4 KiB writes. */
const CHUNK_BYTES = 64 * 1024;

export interface DumpOptions {
  /** Path of a pg_dump of the server's major or newer (see locatePgTool). */
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
  const dump = startPgTool({
    path: pgDump,
    args: ['--format=custom', '--no-password', `--lock-wait-timeout=${LOCK_WAIT_TIMEOUT}`],
    env: pgToolEnvironment(connection),
    stdout: 'pipe',
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
