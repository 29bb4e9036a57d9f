// How evidence names a database incarnation and a backup, the same way in every PostgreSQL checker.
import type { BackupRecord } from '../timeline.ts';

export function databaseText(db: string, incarnation: number): string {
  return `database ${db} (incarnation ${incarnation})`;
}

export function backupText(backup: BackupRecord): string {
  return `backup ${backup.name} of ${databaseText(backup.db, backup.incarnation)} in the ${backup.store} store`;
}
