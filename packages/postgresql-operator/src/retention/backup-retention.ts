import { parseMetav1Time } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import { resolvePostgreSQLBackup } from '../api/resolved-postgresql-backup.ts';
import type { RetentionPolicy } from '../api/resolved-postgresql-spec.ts';
import { planRetention, type RetentionInput, type RetentionVerdict } from './retention.ts';

/** How a PostgreSQLBackup object looks to `planRetention`. */
export function retentionInput(backup: PostgreSQLBackup): RetentionInput {
  const { status } = backup;
  return {
    name: backup.metadata.name ?? '',
    trigger: resolvePostgreSQLBackup(backup).trigger,
    ...(status?.phase === undefined ? {} : { phase: status.phase }),
    verified: status?.verified === true,
    time: parseMetav1Time(status?.completionTime) ?? parseMetav1Time(backup.metadata.creationTimestamp) ?? new Date(0),
  };
}

/**
 * The backups of one PostgreSQL that retention deletes now, each with its reason. Backups already being deleted are
 * left out: they are gone as far as retention is concerned, and must not count towards keepLast.
 */
export function backupsToDelete(backups: readonly PostgreSQLBackup[], policy: RetentionPolicy, now: Date): RetentionVerdict[] {
  const present = backups.filter((backup) => backup.metadata.deletionTimestamp === undefined);
  return planRetention(present.map(retentionInput), policy, now).delete;
}
