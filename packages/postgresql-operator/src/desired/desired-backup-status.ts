import { metav1Time } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup, PostgreSQLBackupStatus } from '../api/postgresql-backup-resource.ts';
import type { BackupManifest } from '../stores/manifest.ts';

/**
 * The status a PostgreSQLBackup moves through: Pending → Running → Completed or Failed. Each function gives the whole
 * status to write (status writes are server-side applies of the whole status).
 */

export function runningStatus(now: Date): PostgreSQLBackupStatus {
  return { phase: 'Running', startTime: metav1Time(now) };
}

/** Completed: stored, decoded in full and read back, manifest published. The figures are the manifest's. */
export function completedStatus(manifest: BackupManifest): PostgreSQLBackupStatus {
  return {
    phase: 'Completed',
    startTime: metav1Time(new Date(manifest.startedAt)),
    completionTime: metav1Time(new Date(manifest.verifiedAt)),
    sizeBytes: manifest.size,
    sha256: manifest.sha256,
    verified: true,
    serverVersion: manifest.serverVersion,
    pgDumpVersion: manifest.pgDumpVersion,
  };
}

/** A Failed backup's `status.reason`: a failure with a cause of its own (see the schema). */
export type BackupFailureReason = NonNullable<PostgreSQLBackupStatus['reason']>;

/** Failed, saying why in `error` and, for a cause of its own, in `reason`. */
export function failedStatus(backup: PostgreSQLBackup, error: string, now: Date, reason?: BackupFailureReason): PostgreSQLBackupStatus {
  const startTime = backup.status?.startTime;
  return { phase: 'Failed', ...(startTime === undefined ? {} : { startTime }), completionTime: metav1Time(now), error, ...(reason === undefined ? {} : { reason }) };
}

/** A completed backup whose dump was later found damaged: kept for inspection, never restored, not counted as good. */
export function damagedStatus(backup: PostgreSQLBackup, problem: string): PostgreSQLBackupStatus {
  return { ...backup.status, verified: false, error: problem };
}

