import { DEFAULT_BACKUP_TRIGGER, type BackupTrigger } from './backup-lifecycle.ts';
import type { PostgreSQLBackup } from './postgresql-backup-resource.ts';
import { resolveS3Store, type ResolvedS3Store } from './resolved-s3-store.ts';

/** A PostgreSQLBackup as the controllers act on it: its trigger with the default applied, and where its dump went. */
export interface ResolvedPostgreSQLBackup {
  trigger: BackupTrigger;
  /** The S3 store its `status.s3` records; absent: the backup volume (or nothing written yet). */
  writtenTo?: ResolvedS3Store;
}

/** Resolved once, as a reconcile of the backup starts (and for each backup retention weighs). */
export function resolvePostgreSQLBackup(backup: PostgreSQLBackup): ResolvedPostgreSQLBackup {
  const s3 = backup.status?.s3;
  return {
    trigger: backup.spec.trigger ?? DEFAULT_BACKUP_TRIGGER,
    ...(s3 === undefined ? {} : { writtenTo: resolveS3Store(s3) }),
  };
}
