import type { Digest } from './digest.ts';
import { InvalidManifestError, parseManifest, type BackupManifest } from './manifest.ts';
import { formatBackupKey, type BackupKey, type BackupStore, type ChecksumCheck } from './store.ts';

/**
 * The checks every {@link BackupStore} makes the same way, whatever holds the bytes: whether a stored manifest can be
 * trusted for the key it is stored under, and whether stored data still matches its manifest.
 */

/** Parses the manifest stored for `key`, refusing one that describes another backup. */
export function parseStoredManifest(key: BackupKey, text: string): BackupManifest {
  let manifest: BackupManifest;
  try {
    manifest = parseManifest(text);
  } catch (error) {
    if (!(error instanceof InvalidManifestError)) throw error;
    throw new InvalidManifestError(`manifest of ${formatBackupKey(key)}: ${error.message}`);
  }
  if (formatBackupKey(manifest.key) !== formatBackupKey(key)) {
    // A manifest copied or moved by hand describes another backup; trusting it would restore the wrong data.
    throw new InvalidManifestError(
      `manifest of ${formatBackupKey(key)} describes ${formatBackupKey(manifest.key)}, not the backup stored there`,
    );
  }
  return manifest;
}

/**
 * `BackupStore.verifyChecksum` from the store's own `manifest` and `digest`. `missingData` tells which errors of
 * `digest` mean "there is no data" and how to say so (a file, an object); other errors are thrown.
 */
export async function verifyStoredChecksum(
  store: Pick<BackupStore, 'manifest' | 'digest'>,
  key: BackupKey,
  options: { signal?: AbortSignal },
  missingData: (error: unknown) => string | undefined,
): Promise<ChecksumCheck> {
  const name = formatBackupKey(key);
  let manifest: BackupManifest | undefined;
  try {
    manifest = await store.manifest(key);
  } catch (error) {
    if (!(error instanceof InvalidManifestError)) throw error;
    return { ok: false, problem: 'ManifestUnreadable', message: error.message };
  }
  if (manifest === undefined) return { ok: false, problem: 'ManifestMissing', message: `${name} has no manifest` };
  let stored: Digest;
  try {
    stored = await store.digest(key, options);
  } catch (error) {
    const missing = missingData(error);
    if (missing !== undefined) return { ok: false, problem: 'DataMissing', message: `${name}: ${missing}` };
    throw error;
  }
  if (stored.size !== manifest.size) {
    return {
      ok: false,
      problem: 'SizeMismatch',
      message: `${name}: the dump has ${stored.size} bytes, its manifest says ${manifest.size}`,
    };
  }
  if (stored.sha256 !== manifest.sha256) {
    return {
      ok: false,
      problem: 'ChecksumMismatch',
      message: `${name}: the dump's SHA-256 is ${stored.sha256}, its manifest says ${manifest.sha256}`,
    };
  }
  return { ok: true, size: stored.size, sha256: stored.sha256 };
}
