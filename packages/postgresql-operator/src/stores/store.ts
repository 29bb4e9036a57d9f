import type { Digest } from './digest.ts';
import type { BackupManifest } from './manifest.ts';

/**
 * Where backups live. The operator ships a directory store (a PersistentVolumeClaim mounted at /backup, as in the
 * seed); the interface is what an object store (S3, GCS) implements as well, which is why it speaks in keys and
 * streams, never in paths, and why publishing is two steps:
 *
 *   1. `write(key, data)` stores the dump durably (directory: temp file, fsync, rename, fsync the directory; object
 *      store: an upload that appears only once complete) and returns its size and SHA-256, computed on the way.
 *   2. `finalize(manifest)` writes the manifest, last. Only then is it a backup: `list`, `manifest` and restores see
 *      backups with manifests only. The backup is verified in between: pg_restore decodes the dump while `write`
 *      stores it, and the stored data is read back for its size and SHA-256, unless the store confirmed those bytes
 *      as it took them (run-backup.ts, read-back.ts). Stored data without a
 *      manifest (a crash between the two steps, a failed verification) is garbage that `removeIncomplete` clears.
 */

/** Identifies one backup: the PostgreSQLBackup named `backup` of the PostgreSQL `postgresql` in `namespace`. */
export interface BackupKey {
  readonly namespace: string;
  readonly postgresql: string;
  readonly backup: string;
}

/** Backups of one namespace, or of one PostgreSQL in it. */
export interface BackupScope {
  readonly namespace: string;
  readonly postgresql?: string;
}

/** What `write` stored: its size and SHA-256. */
export interface StoredData extends Digest {
  /**
   * The store confirmed, as it took the data, that it holds exactly the bytes of this size and SHA-256 (an S3 object
   * whose ETag is the one the MD5s of the parts sent make; s3-store-upload.ts). Such data is not read back before it
   * is published. Absent: it is read back in full.
   */
  confirmedByStore?: boolean;
}

/** The outcome of re-reading a backup and comparing it with its manifest. */
export type ChecksumCheck =
  | { ok: true; size: number; sha256: string }
  | {
      ok: false;
      problem: 'ManifestMissing' | 'ManifestUnreadable' | 'DataMissing' | 'SizeMismatch' | 'ChecksumMismatch';
      message: string;
    };

/** Complete backups (manifest present and valid), newest first, and the manifests that could not be read. */
export interface StoreListing {
  backups: BackupManifest[];
  unreadable: { key: BackupKey; message: string }[];
}

export interface BackupStore {
  /**
   * Streams `data` into the store under `key`, computing size and SHA-256 on the way. The data counts only if `data`
   * ends without throwing (a pg_dump that fails makes its stream throw); otherwise, or when `signal` aborts, nothing is
   * left behind. Refuses a key that already holds data or a manifest: a backup is never overwritten.
   */
  write(key: BackupKey, data: AsyncIterable<Uint8Array>, options?: { signal?: AbortSignal }): Promise<StoredData>;
  /** Publishes a backup whose data `write` stored: writes its manifest, atomically and last. */
  finalize(manifest: BackupManifest): Promise<void>;
  /** Complete backups in `scope` (default: all), newest `finishedAt` first. */
  list(scope?: BackupScope): Promise<StoreListing>;
  /** The manifest of one backup; undefined when it is not a (complete) backup. */
  manifest(key: BackupKey): Promise<BackupManifest | undefined>;
  /** Streams the stored data of `key`, with or without a manifest (a backup is read back before it is published). */
  read(key: BackupKey, options?: { signal?: AbortSignal }): AsyncIterable<Uint8Array>;
  /**
   * Size and SHA-256 of the stored data of `key`, read back in full from the store, with or without a manifest (a
   * backup is read back before it is published). Rejects when there is no data.
   */
  digest(key: BackupKey, options?: { signal?: AbortSignal }): Promise<Digest>;
  /** Reads the data in full and compares its size and SHA-256 with the manifest. */
  verifyChecksum(key: BackupKey, options?: { signal?: AbortSignal }): Promise<ChecksumCheck>;
  /** Deletes a backup: the manifest first (so it stops being a backup at once), then the data. Missing parts are fine. */
  delete(key: BackupKey): Promise<void>;
  /**
   * Deletes data without a manifest and unfinished writes in `scope`; returns the keys cleared. Call it only while no
   * backup of that scope is being written (the operator runs one backup per PostgreSQL at a time, and sweeps before
   * starting one), since a backup being written or verified has no manifest yet either.
   */
  removeIncomplete(scope: BackupScope): Promise<BackupKey[]>;
}

export class BackupStoreError extends Error {
  override name = 'BackupStoreError';
}

// Kubernetes names, which keys are made of: a namespace is a DNS label, PostgreSQL and PostgreSQLBackup names are DNS
// subdomains. Checking them keeps every key inside the store: no '/', no '..', no leading '.'.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `namespace/postgresql/backup`, for messages and logs. */
export function formatBackupKey(key: BackupKey): string {
  return `${key.namespace}/${key.postgresql}/${key.backup}`;
}

/** Throws unless every part of the key is a Kubernetes name of the right kind. */
export function checkBackupKey(key: BackupKey): void {
  checkScope(key);
  if (!DNS_SUBDOMAIN.test(key.backup) || key.backup.length > 253) {
    throw new BackupStoreError(`backup name ${JSON.stringify(key.backup)} is not a Kubernetes object name`);
  }
}

export function checkScope(scope: BackupScope): void {
  if (!DNS_LABEL.test(scope.namespace) || scope.namespace.length > 63) {
    throw new BackupStoreError(`namespace ${JSON.stringify(scope.namespace)} is not a Kubernetes namespace name`);
  }
  if (scope.postgresql !== undefined && (!DNS_SUBDOMAIN.test(scope.postgresql) || scope.postgresql.length > 253)) {
    throw new BackupStoreError(`PostgreSQL name ${JSON.stringify(scope.postgresql)} is not a Kubernetes object name`);
  }
}

/** Newest first by `finishedAt`, then by key so the order is total. */
export function newestFirst(a: BackupManifest, b: BackupManifest): number {
  const byTime = Date.parse(b.finishedAt) - Date.parse(a.finishedAt);
  return byTime !== 0 ? byTime : formatBackupKey(b.key).localeCompare(formatBackupKey(a.key));
}
