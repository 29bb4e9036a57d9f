import { metricsOn } from '@k8s-operators/controller-core';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BackupTrigger } from '../api/backup-lifecycle.ts';

/**
 * The operator's own metrics, next to controller-core's controller_runtime_* ones. With them, "no good backup for two
 * schedule periods" is one rule:
 *
 *   time() - postgresql_backup_last_success_timestamp_seconds > 2 * postgresql_backup_schedule_period_seconds
 *
 * The per-database gauges are derived from the PostgreSQL's status on every reconcile, so they are right again at
 * once after an operator restart or a leader change, and the failure timestamp goes back to 0 as soon as a backup
 * succeeds (CloudNativePG's never resets, so its alerts fire until someone deletes the series: cloudnative-pg#4512).
 */
export interface PostgreSQLMetrics {
  lastSuccess: Gauge<'namespace' | 'postgresql'>;
  lastFailure: Gauge<'namespace' | 'postgresql'>;
  schedulePeriod: Gauge<'namespace' | 'postgresql'>;
  lastSize: Gauge<'namespace' | 'postgresql'>;
  duration: Histogram<'trigger' | 'result'>;
  backups: Counter<'trigger' | 'result'>;
  restores: Counter<'result'>;
  restoreCheckLastSuccess: Gauge<'namespace' | 'postgresql'>;
  restoreCheckLastFailure: Gauge<'namespace' | 'postgresql'>;
  restoreCheckPeriod: Gauge<'namespace' | 'postgresql'>;
  restoreCheckPendingSince: Gauge<'namespace' | 'postgresql'>;
  restoreBlocked: Gauge<'namespace' | 'postgresql'>;
  restoreChecks: Counter<'result'>;
}

const PER_DATABASE = ['namespace', 'postgresql'] as const;

export function registerPostgreSQLMetrics(registry: Registry): PostgreSQLMetrics {
  const define = metricsOn(registry);
  return {
    lastSuccess: define.gauge('postgresql_backup_last_success_timestamp_seconds', 'Completion time (Unix seconds) of the newest verified backup of the database', PER_DATABASE),
    lastFailure: define.gauge(
      'postgresql_backup_last_failure_timestamp_seconds',
      'Completion time (Unix seconds) of the newest backup if it failed; 0 once a later backup succeeded',
      PER_DATABASE,
    ),
    schedulePeriod: define.gauge('postgresql_backup_schedule_period_seconds', 'Seconds between scheduled backups (absent while the schedule is suspended or invalid)', PER_DATABASE),
    lastSize: define.gauge('postgresql_backup_size_bytes', 'Size of the newest verified backup of the database, in bytes', PER_DATABASE),
    duration: define.histogram(
      'postgresql_backup_duration_seconds',
      'Seconds a backup took, from pg_dump start to the published manifest (or to the failure)',
      ['trigger', 'result'],
      [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    ),
    backups: define.counter('postgresql_backups_total', 'Backups run by this operator, by trigger and result (completed or failed)', ['trigger', 'result']),
    restores: define.counter(
      'postgresql_restores_total',
      'Examinations of new database pods before they serve, by result (restored, no_backup, not_empty, no_usable_backup, failed)',
      ['result'],
    ),
    restoreCheckLastSuccess: define.gauge(
      'postgresql_restore_check_last_success_timestamp_seconds',
      'Start time (Unix seconds) of the last restore drill of the database that passed',
      PER_DATABASE,
    ),
    restoreCheckLastFailure: define.gauge(
      'postgresql_restore_check_last_failure_timestamp_seconds',
      'Start time (Unix seconds) of the last restore drill of the database if it failed; 0 once a later drill passed',
      PER_DATABASE,
    ),
    restoreCheckPeriod: define.gauge(
      'postgresql_restore_check_schedule_period_seconds',
      'Seconds between scheduled restore drills (absent without spec.backup.verify or with an invalid schedule)',
      PER_DATABASE,
    ),
    restoreCheckPendingSince: define.gauge(
      'postgresql_restore_check_pending_since_timestamp_seconds',
      'While restore drills are configured and none of the database has a result yet: since when (Unix seconds) one is owed',
      PER_DATABASE,
    ),
    restoreBlocked: define.gauge(
      'postgresql_restore_blocked',
      '1 while the newest pod of the database is kept from serving because its restore failed or was refused (the Restored condition is False), else 0',
      PER_DATABASE,
    ),
    restoreChecks: define.counter(
      'postgresql_restore_checks_total',
      'Restore drills run by this operator, by result (passed, failed, interrupted: the scratch pod went away, retried)',
      ['result'],
    ),
  };
}

export type BackupResult = 'completed' | 'failed';

export type RestoreMetricResult = 'restored' | 'no_backup' | 'not_empty' | 'no_usable_backup' | 'waiting' | 'failed';

export function recordBackup(metrics: PostgreSQLMetrics, trigger: BackupTrigger, result: BackupResult, seconds: number): void {
  metrics.backups.inc({ trigger, result });
  metrics.duration.observe({ trigger, result }, seconds);
}

export function recordRestore(metrics: PostgreSQLMetrics, result: RestoreMetricResult): void {
  metrics.restores.inc({ result });
}

/** What the per-database gauges should read, from the PostgreSQL's derived status. */
export interface DatabaseBackupFigures {
  lastSuccessSeconds?: number;
  lastFailureSeconds: number;
  lastSizeBytes?: number;
  schedulePeriodSeconds?: number;
}

interface Labels {
  namespace: string;
  postgresql: string;
}

/** A per-database gauge: set to `value`, or absent when there is none. */
function setOrRemove(labels: Labels, gauge: Gauge<'namespace' | 'postgresql'>, value: number | undefined): void {
  if (value === undefined) gauge.remove(labels);
  else gauge.set(labels, value);
}

export function setDatabaseGauges(metrics: PostgreSQLMetrics, labels: { namespace: string; postgresql: string }, figures: DatabaseBackupFigures): void {
  setOrRemove(labels, metrics.lastSuccess, figures.lastSuccessSeconds);
  metrics.lastFailure.set(labels, figures.lastFailureSeconds);
  setOrRemove(labels, metrics.lastSize, figures.lastSizeBytes);
  setOrRemove(labels, metrics.schedulePeriod, figures.schedulePeriodSeconds);
}

export type RestoreCheckMetricResult = 'passed' | 'failed' | 'interrupted';

export function recordRestoreCheck(metrics: PostgreSQLMetrics, result: RestoreCheckMetricResult): void {
  metrics.restoreChecks.inc({ result });
}

/** What the per-database drill gauges should read, from the backups' `status.restoreCheck`. */
export interface DatabaseRestoreCheckFigures {
  lastSuccessSeconds?: number;
  /** Absent while no drill has a result. */
  lastFailureSeconds?: number;
  schedulePeriodSeconds?: number;
}

export function setRestoreCheckGauges(metrics: PostgreSQLMetrics, labels: { namespace: string; postgresql: string }, figures: DatabaseRestoreCheckFigures): void {
  setOrRemove(labels, metrics.restoreCheckLastSuccess, figures.lastSuccessSeconds);
  setOrRemove(labels, metrics.restoreCheckLastFailure, figures.lastFailureSeconds);
  setOrRemove(labels, metrics.restoreCheckPeriod, figures.schedulePeriodSeconds);
}

export function removeRestoreCheckGauges(metrics: PostgreSQLMetrics, labels: { namespace: string; postgresql: string }): void {
  for (const gauge of [metrics.restoreCheckLastSuccess, metrics.restoreCheckLastFailure, metrics.restoreCheckPeriod]) gauge.remove(labels);
}

/** What the gauges read off the PostgreSQL's status say (status-figures.ts). */
export interface DatabaseStatusFigures {
  /** Absent once a drill has a result, and without drills. */
  restoreCheckPendingSinceSeconds?: number;
  restoreBlocked: boolean;
}

export function setStatusGauges(metrics: PostgreSQLMetrics, labels: Labels, figures: DatabaseStatusFigures): void {
  setOrRemove(labels, metrics.restoreCheckPendingSince, figures.restoreCheckPendingSinceSeconds);
  metrics.restoreBlocked.set(labels, figures.restoreBlocked ? 1 : 0);
}

export function removeDatabaseGauges(metrics: PostgreSQLMetrics, labels: { namespace: string; postgresql: string }): void {
  for (const gauge of [metrics.lastSuccess, metrics.lastFailure, metrics.lastSize, metrics.schedulePeriod, metrics.restoreCheckPendingSince, metrics.restoreBlocked]) gauge.remove(labels);
}
