import { parseMetav1Time } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { SchedulePlan } from '../desired/backup-schedule-plan.ts';
import { newestFinished, newestUsable } from '../desired/desired-postgresql-status.ts';
import type { DatabaseBackupFigures } from '../metrics/postgresql-metrics.ts';

const seconds = (value: Date | string | undefined): number | undefined => {
  const time = parseMetav1Time(value);
  return time === undefined ? undefined : time.getTime() / 1000;
};

/**
 * The per-database gauges, from the PostgreSQL's backups: the last success is the newest verified backup; the last
 * failure is the newest finished backup if it failed, else 0, so it resets as soon as a backup succeeds.
 */
export function databaseBackupFigures(backups: readonly PostgreSQLBackup[], schedule: SchedulePlan): DatabaseBackupFigures {
  const usable = newestUsable(backups);
  const last = newestFinished(backups);
  const lastSuccessSeconds = seconds(usable?.status?.completionTime);
  const lastSizeBytes = usable?.status?.sizeBytes;
  return {
    ...(lastSuccessSeconds === undefined ? {} : { lastSuccessSeconds }),
    lastFailureSeconds: last?.status?.phase === 'Failed' ? (seconds(last.status.completionTime) ?? 0) : 0,
    ...(lastSizeBytes === undefined ? {} : { lastSizeBytes }),
    ...(schedule.state === 'active' ? { schedulePeriodSeconds: schedule.periodSeconds } : {}),
  };
}
