// How evidence names a database and a backup, the same way in every PostgreSQL checker.
import type { BackupRecord } from '../timeline.ts';

export function databaseText(db: string): string {
  return `database ${db}`;
}

export function backupText(backup: BackupRecord): string {
  return `backup ${backup.name} of ${databaseText(backup.db)} in the ${backup.store} store`;
}
