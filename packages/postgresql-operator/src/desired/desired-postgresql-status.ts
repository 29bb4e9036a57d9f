import { isDeepStrictEqual } from 'node:util';
import { metav1Time, parseMetav1Time, setStatusCondition, type Condition, type ConditionStatus } from '@k8s-operators/controller-core';
import { isFinished, isUsable } from '../api/backup-lifecycle.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { PostgreSQL, PostgreSQLStatus } from '../api/postgresql-resource.ts';
import { PostgreSQLConditionType } from '../api/postgresql-conditions.ts';
import type { SchedulePlan } from './backup-schedule-plan.ts';
import { backupRestorableCondition, lastRestoreCheckSuccess } from './restore-check-status.ts';

/**
 * The PostgreSQL's status after a reconcile, and whether it differs from the stored one (a write is sent only then).
 * Backup fields are derived from the PostgreSQLBackup objects, so they are right after an operator restart too.
 */

export interface ConditionOutcome {
  status: ConditionStatus;
  reason: string;
  message: string;
}

export interface StatusOutcome {
  ready: ConditionOutcome;
  /** The verdict on the pod examined last, when this process examined one; otherwise the stored one stays. */
  restored?: ConditionOutcome;
  /** The PostgreSQL's backups (any phase). */
  backups: readonly PostgreSQLBackup[];
  schedule: SchedulePlan;
  /** The latest slot this process created a backup for; the stored one stays if it is later. */
  servedSlot?: Date;
}

function completionTime(backup: PostgreSQLBackup): number {
  return parseMetav1Time(backup.status?.completionTime)?.getTime() ?? 0;
}

/** The newest backup that finished (Completed or Failed), by completion time. */
export function newestFinished(backups: readonly PostgreSQLBackup[]): PostgreSQLBackup | undefined {
  return backups.filter((backup) => isFinished(backup.status)).sort((a, b) => completionTime(b) - completionTime(a))[0];
}

/** The newest backup a restore would use. */
export function newestUsable(backups: readonly PostgreSQLBackup[]): PostgreSQLBackup | undefined {
  return backups.filter((backup) => isUsable(backup.status)).sort((a, b) => completionTime(b) - completionTime(a))[0];
}

function backupCondition(outcome: StatusOutcome): ConditionOutcome {
  if (outcome.schedule.state === 'invalid') {
    return { status: 'False', reason: 'InvalidSchedule', message: outcome.schedule.message };
  }
  const last = newestFinished(outcome.backups);
  if (last === undefined) return { status: 'Unknown', reason: 'NoBackupYet', message: 'no backup has finished yet' };
  const name = last.metadata.name ?? '';
  if (last.status?.phase === 'Failed') {
    return { status: 'False', reason: last.status.reason ?? 'BackupFailed', message: `backup ${name} failed: ${last.status.error ?? 'no error recorded'}` };
  }
  return {
    status: 'True',
    reason: 'BackupCompleted',
    message: `backup ${name} completed at ${last.status?.completionTime ?? '?'} (${last.status?.sizeBytes ?? 0} bytes, read back in full)`,
  };
}

export function desiredPostgreSQLStatus(postgresql: PostgreSQL, outcome: StatusOutcome, now: Date): { status: PostgreSQLStatus; changed: boolean } {
  const previous = postgresql.status ?? {};
  const generation = postgresql.metadata.generation;
  const withGeneration = (type: string, c: ConditionOutcome) => ({ type, ...c, ...(generation === undefined ? {} : { observedGeneration: generation }) });
  let conditions: Condition[] = [...(previous.conditions ?? [])];
  const set = (type: string, c: ConditionOutcome): void => {
    conditions = setStatusCondition(conditions, withGeneration(type, c), now).conditions;
  };
  set(PostgreSQLConditionType.Ready, outcome.ready);
  set(PostgreSQLConditionType.BackupSucceeded, backupCondition(outcome));
  if (outcome.restored !== undefined) set(PostgreSQLConditionType.Restored, outcome.restored);
  else if (!conditions.some((c) => c.type === PostgreSQLConditionType.Restored)) {
    set(PostgreSQLConditionType.Restored, { status: 'Unknown', reason: 'WaitingForPod', message: 'no pod has been examined yet' });
  }
  const restorable = backupRestorableCondition(outcome.backups, postgresql.spec.backup?.verify !== undefined);
  if (restorable !== undefined) set(PostgreSQLConditionType.BackupRestorable, restorable);
  // Drills removed before any had a result: nothing is owed any more.
  else conditions = conditions.filter((c) => c.type !== PostgreSQLConditionType.BackupRestorable);

  // Fields without a value are left out rather than set to undefined, so the comparison with the stored status sees
  // only real differences.
  const { lastBackup: _lastBackup, lastSuccessfulBackupTime: _lastSuccess, nextScheduledBackupTime: _next, lastRestoreCheckSuccess: _lastCheck, ...kept } = previous;
  const status: PostgreSQLStatus = { ...kept, conditions };
  if (generation !== undefined) status.observedGeneration = generation;
  const last = newestFinished(outcome.backups);
  if (last?.status?.phase === 'Completed' || last?.status?.phase === 'Failed') {
    status.lastBackup = {
      name: last.metadata.name ?? '',
      phase: last.status.phase,
      ...(last.status.completionTime === undefined ? {} : { completionTime: last.status.completionTime }),
      ...(last.status.phase === 'Completed' && last.status.sizeBytes !== undefined ? { sizeBytes: last.status.sizeBytes } : {}),
    };
  }
  const usable = newestUsable(outcome.backups)?.status?.completionTime;
  if (usable !== undefined) status.lastSuccessfulBackupTime = usable;
  const recorded = parseMetav1Time(previous.lastScheduledBackupTime);
  if (outcome.servedSlot !== undefined && (recorded === undefined || outcome.servedSlot > recorded)) {
    status.lastScheduledBackupTime = metav1Time(outcome.servedSlot);
  }
  if (outcome.schedule.state === 'active') status.nextScheduledBackupTime = metav1Time(outcome.schedule.next);
  const checked = lastRestoreCheckSuccess(outcome.backups);
  if (checked !== undefined) status.lastRestoreCheckSuccess = checked;
  return { status, changed: !isDeepStrictEqual(status, previous) };
}
