import type { BackupManifest } from '../stores/manifest.ts';
import { newestFirst, type BackupKey, type StoreListing } from '../stores/store.ts';

/** Why a stored backup was passed over for a restore. */
export type SkipReason =
  /** Its manifest could not be read, so nothing about it can be trusted. */
  | 'UnreadableManifest'
  /** It is a dump of another database than the one to restore (a PostgreSQL re-created with another spec.db). */
  | 'OtherDatabase'
  /** Its dump no longer matches the size or SHA-256 in its manifest, or is missing. */
  | 'Corrupted';

export interface SkippedBackup {
  key: BackupKey;
  reason: SkipReason;
  message: string;
}

export interface RestoreCandidates {
  /** Backups to try, newest first: the first that passes its checksum check is restored. */
  candidates: BackupManifest[];
  skipped: SkippedBackup[];
}

/**
 * Orders the backups of one PostgreSQL for a restore, newest first, and sets aside those that cannot be restored into
 * `database`, saying why. Every listed backup was decoded in full and read back with the same SHA-256 when it was taken
 * (no manifest is written otherwise); whether its bytes are still intact is checked just before restoring it (see
 * restoreLatestBackup).
 */
export function selectRestoreCandidates(listing: StoreListing, database: string): RestoreCandidates {
  const skipped: SkippedBackup[] = listing.unreadable.map(({ key, message }) => ({
    key,
    reason: 'UnreadableManifest',
    message,
  }));
  const candidates: BackupManifest[] = [];
  for (const backup of [...listing.backups].sort(newestFirst)) {
    if (backup.database === database) {
      candidates.push(backup);
    } else {
      skipped.push({
        key: backup.key,
        reason: 'OtherDatabase',
        message: `it is a dump of database ${backup.database}, not ${database}`,
      });
    }
  }
  return { candidates, skipped };
}
