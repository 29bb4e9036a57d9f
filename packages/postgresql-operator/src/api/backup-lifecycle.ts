/**
 * The phases and triggers of a PostgreSQLBackup, for the schema (postgresql-backup-schema.ts) and for the code that
 * acts on them, kept apart from the schema so the runtime loads no TypeBox, and importing nothing, so a backup Job's
 * start loads no more than it needs (backup-job-entry.test.ts).
 */

/** Phases of a PostgreSQLBackup, in order; `Completed` and `Failed` are final. */
export const BACKUP_PHASES = ['Pending', 'Running', 'Completed', 'Failed'] as const;
export type BackupPhase = (typeof BACKUP_PHASES)[number];

/**
 * Who asked for a backup. Retention manages `Scheduled` backups only: an on-demand backup (say, before a migration)
 * and the final backup of a deleted database stay until someone deletes them.
 */
export const BACKUP_TRIGGERS = ['Scheduled', 'OnDemand', 'Final'] as const;
export type BackupTrigger = (typeof BACKUP_TRIGGERS)[number];
export const DEFAULT_BACKUP_TRIGGER: BackupTrigger = 'OnDemand';

/** What the lifecycle predicates read: a PostgreSQLBackup's status, or retention's view of one. */
export interface BackupState {
  phase?: BackupPhase | undefined;
  verified?: boolean | undefined;
}

/** Finished backups never change phase again. */
export function isFinished(state: BackupState | undefined): boolean {
  return state?.phase === 'Completed' || state?.phase === 'Failed';
}

/** Completed and still believed intact: what a restore would use. */
export function isUsable(state: BackupState | undefined): boolean {
  return state?.phase === 'Completed' && state.verified === true;
}
