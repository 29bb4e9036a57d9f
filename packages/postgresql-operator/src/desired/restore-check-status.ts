import { metav1Time, parseMetav1Time } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup, PostgreSQLBackupStatus } from '../api/postgresql-backup-resource.ts';
import type { RestoreCheckFailureReason, RestoreCheckTrigger } from '../api/restore-check.ts';
import type { ConditionOutcome } from './desired-postgresql-status.ts';

/**
 * Where a drill's result is written: on the backup it restored (`status.restoreCheck`), the record; and on the
 * PostgreSQL (the `BackupRestorable` condition, `status.lastRestoreCheckSuccess`), derived from those records on every
 * status write, so both are right after an operator restart.
 */

export type RestoreCheckRecord = NonNullable<PostgreSQLBackupStatus['restoreCheck']>;

/** How a drill that finished went: the restore and the check passed, or the backup failed it, saying why. */
export type RestoreCheckOutcome =
  | { result: 'Passed'; output: string }
  | { result: 'Failed'; reason: RestoreCheckFailureReason; error: string; output?: string };

export interface FinishedRestoreCheck {
  verdict: RestoreCheckOutcome;
  startedAt: Date;
  finishedAt: Date;
  trigger: RestoreCheckTrigger;
  request?: string;
}

/** The backup's status with the drill recorded; the rest of its status is kept. */
export function backupStatusWithRestoreCheck(backup: PostgreSQLBackup, check: FinishedRestoreCheck): PostgreSQLBackupStatus {
  const { verdict } = check;
  const record: RestoreCheckRecord = {
    time: metav1Time(check.startedAt),
    durationSeconds: Math.max(0, Math.round((check.finishedAt.getTime() - check.startedAt.getTime()) / 100) / 10),
    result: verdict.result,
    trigger: check.trigger,
    ...(check.request === undefined ? {} : { request: check.request }),
    ...(verdict.result === 'Failed' ? { reason: verdict.reason, error: verdict.error } : {}),
    ...(verdict.output === undefined ? {} : { output: verdict.output }),
  };
  return { ...backup.status, restoreCheck: record };
}

const checkTime = (backup: PostgreSQLBackup): number => parseMetav1Time(backup.status?.restoreCheck?.time)?.getTime() ?? -1;

/** The backup whose drill ran last, and, of those that passed, the last. */
export function lastRestoreChecks(backups: readonly PostgreSQLBackup[]): { last?: PostgreSQLBackup; lastPassed?: PostgreSQLBackup } {
  const checked = backups.filter((b) => b.status?.restoreCheck !== undefined).sort((a, b) => checkTime(b) - checkTime(a));
  const last = checked[0];
  const lastPassed = checked.find((b) => b.status?.restoreCheck?.result === 'Passed');
  return { ...(last === undefined ? {} : { last }), ...(lastPassed === undefined ? {} : { lastPassed }) };
}

/**
 * `BackupRestorable` while drills are owed and none has a result yet: Unknown from the moment drills are configured, so
 * its lastTransitionTime says since when a pass is owed (the `postgresql_restore_check_pending_since_timestamp_seconds`
 * gauge, which the stale-drill alert reads for a database that has never passed one).
 */
export const NOT_YET_CHECKED: ConditionOutcome = {
  status: 'Unknown',
  reason: 'NotYetChecked',
  message: 'no restore drill has a result yet: one runs at the next drill slot, or as soon as there is a usable backup',
};

/**
 * `BackupRestorable`, from the last drill; NotYetChecked while drills are configured (`drillsConfigured`) and none has
 * a result; absent otherwise.
 */
export function backupRestorableCondition(backups: readonly PostgreSQLBackup[], drillsConfigured: boolean): ConditionOutcome | undefined {
  const { last } = lastRestoreChecks(backups);
  const check = last?.status?.restoreCheck;
  if (last === undefined || check === undefined) return drillsConfigured ? NOT_YET_CHECKED : undefined;
  const name = last.metadata.name ?? '';
  if (check.result === 'Passed') {
    return {
      status: 'True',
      reason: 'RestoreCheckPassed',
      message: `backup ${name} was restored into a scratch pod at ${check.time} in ${String(check.durationSeconds)} s and checked: ${check.output ?? ''}`,
    };
  }
  return {
    status: 'False',
    reason: check.reason ?? 'RestoreCheckFailed',
    message: `backup ${name} failed its restore drill at ${check.time}: ${check.error ?? 'no error recorded'}`,
  };
}

/** `status.lastRestoreCheckSuccess`: when the last drill that passed ran. */
export function lastRestoreCheckSuccess(backups: readonly PostgreSQLBackup[]): string | undefined {
  return lastRestoreChecks(backups).lastPassed?.status?.restoreCheck?.time;
}
