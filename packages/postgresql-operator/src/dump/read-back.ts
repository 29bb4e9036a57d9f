import type { Digest } from '../stores/digest.ts';
import type { BackupKey, BackupStore, StoredData } from '../stores/store.ts';

/**
 * The last check before a backup is published: the stored dump must be the bytes that were written and the bytes
 * pg_restore decoded while they were written (decode-dump.ts). Equal size and SHA-256 mean equal bytes, so pg_restore
 * is not run again. What the store holds is read back in full for its size and SHA-256, unless the store already
 * confirmed those bytes as it took them (an S3 object whose ETag matches the MD5s of the parts sent,
 * s3-store-upload.ts): reading 1 GiB back from a bucket would then only repeat what its ETag says.
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
  /**
   * For an encrypted backup, the plaintext the store's stream was encrypted from: the decode is compared with it, and
   * the stored ciphertext with what was written.
   */
  plaintext?: Digest;
  signal?: AbortSignal;
}

export async function readBackDump(options: ReadBackOptions): Promise<void> {
  const { store, key, written, decoded, plaintext, signal } = options;
  // Encrypted, the decode is compared with the plaintext that was encrypted; otherwise with what the store holds.
  const compareDecoded = (stored: Digest): void => {
    if (plaintext === undefined) checkDecoded(decoded, stored, 'the store holds');
    else checkDecoded(decoded, plaintext, 'the store was sent, before encryption,');
  };
  if (written.confirmedByStore === true) {
    compareDecoded(written);
    return;
  }
  const stored = await store.digest(key, { signal });
  if (stored.size !== written.size || stored.sha256 !== written.sha256) {
    throw new DumpVerificationError(
      `the stored dump reads back as ${stored.size} bytes with SHA-256 ${stored.sha256}, but ${written.size} bytes ` +
        `with SHA-256 ${written.sha256} were written`,
    );
  }
  compareDecoded(stored);
}

function checkDecoded(decoded: Digest, stored: Digest, what: string): void {
  if (stored.size !== decoded.size || stored.sha256 !== decoded.sha256) {
    throw new DumpVerificationError(
      `pg_restore decoded ${decoded.size} bytes with SHA-256 ${decoded.sha256}, but ${what} ${stored.size} ` +
        `bytes with SHA-256 ${stored.sha256}`,
    );
  }
}
