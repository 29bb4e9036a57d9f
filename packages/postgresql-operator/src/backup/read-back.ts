import { StreamDigest, digesting } from './digest.ts';
import { startPgTool } from '../postgres/tool-process.ts';
import type { StoredData } from './store.ts';

/**
 * Reads a stored dump back in full with `pg_restore --file=/dev/null`, which decodes every table's data, while
 * recomputing its SHA-256. `pg_restore --list` is not enough: it reads only the table of contents and passed on a dump
 * truncated to half its size (measured with PostgreSQL 15); the full read fails ("could not read from input file: end
 * of file"). Reading back what the store holds, rather than what was sent to it, also checks the store itself.
 */

export class DumpVerificationError extends Error {
  override name = 'DumpVerificationError';
}

export interface ReadBackOptions {
  /** The stored dump, as the store returns it. */
  data: AsyncIterable<Uint8Array>;
  /** What `write` reported for it. */
  expected: StoredData;
  /** Path of a pg_restore of the dump's pg_dump major or newer. */
  pgRestore: string;
  signal?: AbortSignal;
}

export async function readBackDump(options: ReadBackOptions): Promise<void> {
  const { data, expected, pgRestore, signal } = options;
  const digest = new StreamDigest();
  const restore = startPgTool({
    path: pgRestore,
    args: ['--format=custom', '--file=/dev/null'],
    env: { LC_ALL: 'C', ...(process.env.PATH === undefined ? {} : { PATH: process.env.PATH }) },
    stdin: digesting(data, digest),
    stdout: 'ignore',
    signal,
  });
  try {
    await restore.exited;
  } catch (error) {
    throw new DumpVerificationError(
      `the stored dump could not be read back in full: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const sha256 = digest.sha256();
  if (digest.size !== expected.size || sha256 !== expected.sha256) {
    throw new DumpVerificationError(
      `the stored dump reads back as ${digest.size} bytes with SHA-256 ${sha256}, but ${expected.size} bytes with ` +
        `SHA-256 ${expected.sha256} were written`,
    );
  }
}
