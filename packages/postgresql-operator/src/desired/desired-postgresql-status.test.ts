import { describe, expect, it } from 'vitest';
import { backupFixture, postgresqlFixture } from '../../test/postgresql-fixture.ts';
import type { SchedulePlan } from './backup-schedule-plan.ts';
import { desiredPostgreSQLStatus } from './desired-postgresql-status.ts';

const now = new Date('2026-01-02T03:10:00Z');
const schedule: SchedulePlan = { state: 'active', next: new Date('2026-01-02T03:15:00Z'), periodSeconds: 300 };
const serving = { status: 'True' as const, reason: 'Serving', message: 'pod foodb-x serves database foo through Service foodb' };
const completed = backupFixture('foodb-1', { status: { phase: 'Completed', completionTime: '2026-01-02T03:05:02Z', sizeBytes: 2048, verified: true } });
const failed = backupFixture('foodb-2', { status: { phase: 'Failed', completionTime: '2026-01-02T03:06:00Z', error: 'pg_dump failed' } });

describe('desiredPostgreSQLStatus', () => {
  it('has Ready first, the backup condition, and Restored unknown until a pod is examined', () => {
    const { status, changed } = desiredPostgreSQLStatus(postgresqlFixture(), { ready: serving, backups: [], schedule }, now);
    expect(changed).toBe(true);
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'True', 'Serving'],
      ['BackupSucceeded', 'Unknown', 'NoBackupYet'],
      ['Restored', 'Unknown', 'WaitingForPod'],
    ]);
    expect(status).toMatchObject({ observedGeneration: 1, nextScheduledBackupTime: '2026-01-02T03:15:00Z' });
    expect(status).not.toHaveProperty('lastBackup');
  });

  it('derives the last backup and the last good one from the backups', () => {
    const { status } = desiredPostgreSQLStatus(postgresqlFixture(), { ready: serving, backups: [completed, failed], schedule }, now);
    expect(status.lastBackup).toEqual({ name: 'foodb-2', phase: 'Failed', completionTime: '2026-01-02T03:06:00Z' });
    expect(status.lastSuccessfulBackupTime).toBe('2026-01-02T03:05:02Z');
    expect(status.conditions?.find((c) => c.type === 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'BackupFailed', message: 'backup foodb-2 failed: pg_dump failed' });
    const later = backupFixture('foodb-3', { status: { phase: 'Completed', completionTime: '2026-01-02T03:07:00Z', sizeBytes: 4096, verified: true } });
    const recovered = desiredPostgreSQLStatus(postgresqlFixture(), { ready: serving, backups: [completed, failed, later], schedule }, now).status;
    expect(recovered.lastBackup).toEqual({ name: 'foodb-3', phase: 'Completed', completionTime: '2026-01-02T03:07:00Z', sizeBytes: 4096 });
    expect(recovered.conditions?.find((c) => c.type === 'BackupSucceeded')?.status).toBe('True');
  });

  it("gives BackupSucceeded the failed backup's own reason when it has one", () => {
    const noTool = backupFixture('foodb-2', { status: { phase: 'Failed', completionTime: '2026-01-02T03:06:00Z', reason: 'PgToolMissing', error: 'pg_dump 15 is needed …' } });
    const { status } = desiredPostgreSQLStatus(postgresqlFixture(), { ready: serving, backups: [completed, noTool], schedule }, now);
    expect(status.conditions?.find((c) => c.type === 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'PgToolMissing', message: 'backup foodb-2 failed: pg_dump 15 is needed …' });
  });

  it('reports an invalid schedule on BackupSucceeded and keeps no next backup time', () => {
    const invalid: SchedulePlan = { state: 'invalid', message: 'schedule "61 * * * *" is not a valid cron expression' };
    const { status } = desiredPostgreSQLStatus(postgresqlFixture({ status: { nextScheduledBackupTime: '2026-01-02T03:15:00Z' } }), { ready: serving, backups: [completed], schedule: invalid }, now);
    expect(status.conditions?.find((c) => c.type === 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'InvalidSchedule' });
    expect(status).not.toHaveProperty('nextScheduledBackupTime');
  });

  it('keeps a later recorded schedule slot and a stored Restored condition; reports no change when nothing changed', () => {
    const first = desiredPostgreSQLStatus(postgresqlFixture(), {
      ready: serving, backups: [completed], schedule, servedSlot: new Date('2026-01-02T03:05:00Z'),
      restored: { status: 'True', reason: 'NoBackup', message: 'new database' },
    }, now).status;
    expect(first.lastScheduledBackupTime).toBe('2026-01-02T03:05:00Z');
    const again = desiredPostgreSQLStatus(postgresqlFixture({ status: first }), { ready: serving, backups: [completed], schedule, servedSlot: new Date('2026-01-02T03:00:00Z') }, new Date('2026-01-02T03:11:00Z'));
    expect(again.changed).toBe(false);
    expect(again.status.conditions?.find((c) => c.type === 'Restored')?.reason).toBe('NoBackup');
  });
});
