import { describe, expect, it } from 'vitest';
import { backupFixture, postgresqlFixture } from '../../test/postgresql-fixture.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { SchedulePlan } from './backup-schedule-plan.ts';
import { desiredPostgreSQLStatus } from './desired-postgresql-status.ts';
import { backupRestorableCondition, backupStatusWithRestoreCheck, lastRestoreCheckSuccess } from './restore-check-status.ts';

const completed = { phase: 'Completed' as const, completionTime: '2026-01-02T03:05:02Z', sizeBytes: 2048, verified: true };
const startedAt = new Date('2026-01-03T04:00:01Z');
const finishedAt = new Date('2026-01-03T04:00:13.46Z');

function checked(name: string, verdict: Parameters<typeof backupStatusWithRestoreCheck>[1]['verdict'], at = startedAt): PostgreSQLBackup {
  const backup = backupFixture(name, { status: completed });
  return backupFixture(name, { status: backupStatusWithRestoreCheck(backup, { verdict, startedAt: at, finishedAt: new Date(at.getTime() + 12_460), trigger: 'Scheduled' }) });
}

describe('backupStatusWithRestoreCheck', () => {
  it("records time, duration, result and the check's output on the backup, keeping the rest of its status", () => {
    const backup = backupFixture('foodb-1', { status: completed });
    const status = backupStatusWithRestoreCheck(backup, { verdict: { result: 'Passed', output: '1 table, 3 rows: public.items 3' }, startedAt, finishedAt, trigger: 'OnDemand', request: 'r1' });
    expect(status).toEqual({
      ...completed,
      restoreCheck: { time: '2026-01-03T04:00:01Z', durationSeconds: 12.5, result: 'Passed', trigger: 'OnDemand', request: 'r1', output: '1 table, 3 rows: public.items 3' },
    });
  });

  it('records the reason and the error of a failed drill', () => {
    const backup = checked('foodb-1', { result: 'Failed', reason: 'CheckMismatch', error: 'the check query answered "2", expected "3"', output: 'x' });
    expect(backup.status?.restoreCheck).toMatchObject({ result: 'Failed', reason: 'CheckMismatch', error: 'the check query answered "2", expected "3"', output: 'x' });
  });
});

describe('the PostgreSQL\'s BackupRestorable condition and lastRestoreCheckSuccess', () => {
  const passed = checked('foodb-1', { result: 'Passed', output: '1 table, 3 rows: public.items 3' }, new Date('2026-01-02T04:00:01Z'));
  const failed = checked('foodb-2', { result: 'Failed', reason: 'RestoreFailed', error: 'pg_restore: error: role "reporting" does not exist' });

  it('is absent before any drill without drills configured, and Unknown NotYetChecked with them', () => {
    expect(backupRestorableCondition([backupFixture('foodb-1', { status: completed })], false)).toBeUndefined();
    expect(backupRestorableCondition([backupFixture('foodb-1', { status: completed })], true)).toEqual({
      status: 'Unknown',
      reason: 'NotYetChecked',
      message: 'no restore drill has a result yet: one runs at the next drill slot, or as soon as there is a usable backup',
    });
    expect(lastRestoreCheckSuccess([])).toBeUndefined();
  });

  it('names the backup of the last drill, True when it passed and False with its reason when it failed', () => {
    expect(backupRestorableCondition([passed], true)).toEqual({
      status: 'True',
      reason: 'RestoreCheckPassed',
      message: 'backup foodb-1 was restored into a scratch pod at 2026-01-02T04:00:01Z in 12.5 s and checked: 1 table, 3 rows: public.items 3',
    });
    expect(backupRestorableCondition([passed, failed], false)).toEqual({
      status: 'False',
      reason: 'RestoreFailed',
      message: 'backup foodb-2 failed its restore drill at 2026-01-03T04:00:01Z: pg_restore: error: role "reporting" does not exist',
    });
    expect(lastRestoreCheckSuccess([passed, failed])).toBe('2026-01-02T04:00:01Z');
  });

  it('is written with the rest of the PostgreSQL status, derived from the backups', () => {
    const schedule: SchedulePlan = { state: 'suspended' };
    const ready = { status: 'True' as const, reason: 'Serving', message: 'serving' };
    const { status } = desiredPostgreSQLStatus(postgresqlFixture(), { ready, backups: [passed, failed], schedule }, new Date('2026-01-03T05:00:00Z'));
    expect(status.conditions?.find((c) => c.type === 'BackupRestorable')).toMatchObject({ status: 'False', reason: 'RestoreFailed' });
    expect(status.lastRestoreCheckSuccess).toBe('2026-01-02T04:00:01Z');
  });

  it('is Unknown from the moment drills are configured until the first result, keeping that time, and goes with them', () => {
    const schedule: SchedulePlan = { state: 'suspended' };
    const ready = { status: 'True' as const, reason: 'Serving', message: 'serving' };
    const configured = postgresqlFixture({ spec: { backup: { verify: {} } } });
    const first = desiredPostgreSQLStatus(configured, { ready, backups: [], schedule }, new Date('2026-01-03T05:00:00Z')).status;
    expect(first.conditions?.find((c) => c.type === 'BackupRestorable')).toMatchObject({ status: 'Unknown', reason: 'NotYetChecked', lastTransitionTime: '2026-01-03T05:00:00Z' });
    // A day on, still no result: the condition keeps the time since which a pass is owed.
    const later = desiredPostgreSQLStatus({ ...configured, status: first }, { ready, backups: [backupFixture('foodb-1', { status: completed })], schedule }, new Date('2026-01-04T05:00:00Z')).status;
    expect(later.conditions?.find((c) => c.type === 'BackupRestorable')).toMatchObject({ reason: 'NotYetChecked', lastTransitionTime: '2026-01-03T05:00:00Z' });
    const removed = desiredPostgreSQLStatus({ ...postgresqlFixture(), status: later }, { ready, backups: [], schedule }, new Date('2026-01-04T06:00:00Z')).status;
    expect(removed.conditions?.map((c) => c.type)).not.toContain('BackupRestorable');
  });
});
