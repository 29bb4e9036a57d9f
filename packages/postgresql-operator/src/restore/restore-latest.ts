import type { BackupManifest } from '../stores/manifest.ts';
import type { BackupStore } from '../stores/store.ts';
import { withConnection, type ConnectionParameters } from '../postgres/connection.ts';
import { isDatabaseEmpty } from '../postgres/inspect.ts';
import type { DiscoverOptions } from '../postgres/tools-version.ts';
import { selectRestoreCandidates, type SkippedBackup } from './candidates.ts';
import { BackupCorruptedError, restoreBackup } from './restore-backup.ts';
import type { IdentitySource } from './backup-decryption.ts';

export type LatestRestoreResult =
  /** `backup` was restored; `skipped` lists newer backups passed over, and why. */
  | { outcome: 'Restored'; backup: BackupManifest; skipped: SkippedBackup[] }
  /** The store holds no backup of this PostgreSQL: a fresh database is all there is (the seed's first start). */
  | { outcome: 'NoBackup' }
  /** Backups exist but none can be restored: the database stays empty. Do not start serving it silently. */
  | { outcome: 'NoUsableBackup'; skipped: SkippedBackup[] }
  /** The database already holds data (e.g. it lives on a volume): nothing was restored, nothing was touched. */
  | { outcome: 'NotEmpty'; found: string[] };

export interface LatestRestoreRequest {
  store: BackupStore;
  namespace: string;
  postgresql: string;
  /** The PostgreSQL pod's address and credentials, with `database` = `spec.db`. */
  connection: ConnectionParameters;
  /** `spec.user`. */
  role: string;
  signal?: AbortSignal;
  tools?: DiscoverOptions;
  /** The identity for encrypted backups, read only if the backup to restore is encrypted. */
  identity?: IdentitySource;
}

/**
 * Brings a new, empty database back to its newest intact backup: candidates newest first; a backup whose dump fails
 * its checksum check is skipped and the next older one tried. Any other failure (the database went away, pg_restore
 * failed) is thrown: the single-transaction restore left the database empty, and the caller retries later. Thrown too,
 * for the caller not to retry, as only another image fixes them: no pg_restore of the server's major, and a newest
 * backup dumped from a newer major. A backup that cannot be decrypted (BackupNotDecryptableError) is thrown as well,
 * retried as the identity Secret may be fixed. An older backup is not restored in place of any of these: that would
 * serve older data without anyone deciding so.
 */
export async function restoreLatestBackup(request: LatestRestoreRequest): Promise<LatestRestoreResult> {
  const { store, namespace, postgresql, connection, ...rest } = request;
  const contents = await withConnection(connection, isDatabaseEmpty);
  if (!contents.empty) return { outcome: 'NotEmpty', found: contents.found };

  const listing = await store.list({ namespace, postgresql });
  if (listing.backups.length === 0 && listing.unreadable.length === 0) return { outcome: 'NoBackup' };
  const { candidates, skipped } = selectRestoreCandidates(listing, connection.database);
  for (const backup of candidates) {
    try {
      await restoreBackup({ store, backup, connection, ...rest });
      return { outcome: 'Restored', backup, skipped };
    } catch (error) {
      if (!(error instanceof BackupCorruptedError)) throw error;
      skipped.push({ key: backup.key, reason: 'Corrupted', message: error.check.message });
    }
  }
  return { outcome: 'NoUsableBackup', skipped };
}
