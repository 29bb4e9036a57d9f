import { StreamDigest, digesting, type Digest } from '../stores/digest.ts';
import { DumpVerificationError } from './read-back.ts';
import { startPgTool } from '../postgres/tool-process.ts';

/**
 * Decodes a dump in full, as it is being written, with `pg_restore --format=custom --file=/dev/null` reading it on
 * stdin: every table's data is decompressed and parsed. `pg_restore --list` is not enough: it reads only the table of
 * contents and passed on a dump truncated to half its size (measured with PostgreSQL 15); the full decode fails
 * ("could not read from input file: end of file"). The size and SHA-256 of the bytes pg_restore consumed are returned,
 * so that the caller can check they are the bytes the store holds (read-back.ts).
 */

/**
 * pg_restore decodes at the lowest priority. pg_dump holds a snapshot open on the server until it is done (which holds
 * back VACUUM there), so where CPU is short the dump, not its check, should get it. The caller lets the check fall
 * behind the dump by a bounded amount (run-backup.ts), so that it can wait for idle CPU without stopping pg_dump, and
 * catches up once the dump is written.
 */
const DECODE_NICENESS = 19;

export interface DecodeOptions {
  /** The dump, as pg_dump writes it. */
  data: AsyncIterable<Uint8Array>;
  /** Path of the pg_restore of the dump's pg_dump major (the server's: see locatePgTool). */
  pgRestore: string;
  signal?: AbortSignal;
}

/**
 * Resolves once pg_restore decoded all of `data`. Rejects with a {@link DumpVerificationError} when pg_restore fails
 * (a truncated or corrupt dump) or stops reading before the end. An error of `data` itself (pg_dump failed, the stream
 * was stopped) and an abort are passed on unchanged: they say nothing about the dump.
 */
export async function decodeDump(options: DecodeOptions): Promise<Digest> {
  const { data, pgRestore, signal } = options;
  const digest = new StreamDigest();
  const input = { failed: false };
  async function* tracked(): AsyncGenerator<Uint8Array, void, undefined> {
    try {
      yield* digesting(data, digest);
    } catch (error) {
      input.failed = true;
      throw error;
    }
  }
  try {
    await startPgTool({
      path: pgRestore,
      args: ['--format=custom', '--file=/dev/null'],
      env: { LC_ALL: 'C', ...(process.env.PATH === undefined ? {} : { PATH: process.env.PATH }) },
      stdin: tracked(),
      stdout: 'ignore',
      niceness: DECODE_NICENESS,
      signal,
    }).exited;
  } catch (error) {
    if (input.failed || signal?.aborted === true) throw error;
    throw new DumpVerificationError(
      `the dump could not be decoded in full: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return digest.result();
}
