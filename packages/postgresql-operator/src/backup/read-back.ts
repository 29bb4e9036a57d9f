import type { Digest } from './digest.ts';
import type { BackupKey, BackupStore, StoredData } from './store.ts';

/**
 * The last check before a backup is published: the stored dump is read back in full for its size and SHA-256, which
 * must equal what `write` reported (the store kept what it said it kept) and what pg_restore decoded while the dump was
 * written (decode-dump.ts; the bytes that were decoded are the bytes that are stored). pg_restore is not run again:
 * equal SHA-256 means equal bytes.
 */

/**
 * A dump that must not be published: pg_restore could not decode it in full, or the stored bytes are not the bytes
 * that were written and decoded.
 */
export class DumpVerificationError extends Error {
  override name = 'DumpVerificationError';
}

export interface ReadBackOptions {
  /** Where the dump was written, and under which key. */
  store: BackupStore;
  key: BackupKey;
  /** What `write` reported for it. */
  written: StoredData;
  /** What pg_restore consumed and decoded. */
  decoded: Digest;
  signal?: AbortSignal;
}

export async function readBackDump(options: ReadBackOptions): Promise<void> {
  const { store, key, written, decoded, signal } = options;
  const stored = await store.digest(key, { signal });
  if (stored.size !== written.size || stored.sha256 !== written.sha256) {
    throw new DumpVerificationError(
      `the stored dump reads back as ${stored.size} bytes with SHA-256 ${stored.sha256}, but ${written.size} bytes ` +
        `with SHA-256 ${written.sha256} were written`,
    );
  }
  if (stored.size !== decoded.size || stored.sha256 !== decoded.sha256) {
    throw new DumpVerificationError(
      `pg_restore decoded ${decoded.size} bytes with SHA-256 ${decoded.sha256}, but the store holds ${stored.size} ` +
        `bytes with SHA-256 ${stored.sha256}`,
    );
  }
}
