import { describe, expect, it } from 'vitest';
import { backupFixture, manifestFixture } from '../../test/postgresql-fixture.ts';
import { isFinished, isUsable } from '../api/backup-lifecycle.ts';
import { completedStatus, damagedStatus, failedStatus, runningStatus } from './desired-backup-status.ts';

const manifest = manifestFixture({ trigger: 'OnDemand' });

describe('backup status', () => {
  it('moves Pending → Running → Completed with the manifest\'s figures, in metav1 time', () => {
    expect(runningStatus(new Date('2026-01-02T03:05:00.250Z'))).toEqual({ phase: 'Running', startTime: '2026-01-02T03:05:00Z' });
    expect(completedStatus(manifest)).toEqual({
      phase: 'Completed',
      startTime: '2026-01-02T03:05:00Z',
      completionTime: '2026-01-02T03:05:02Z',
      sizeBytes: 2048,
      sha256: 'a'.repeat(64),
      verified: true,
      serverVersion: '15.18',
      pgDumpVersion: '15.18',
    });
  });

  it('fails with the error, keeping the start time', () => {
    const running = backupFixture('foodb-1', { status: { phase: 'Running', startTime: '2026-01-02T03:05:00Z' } });
    expect(failedStatus(running, 'pg_dump failed', new Date('2026-01-02T03:06:00Z'))).toEqual({ phase: 'Failed', startTime: '2026-01-02T03:05:00Z', completionTime: '2026-01-02T03:06:00Z', error: 'pg_dump failed' });
    expect(failedStatus(running, 'pg_dump 15 is needed …', new Date('2026-01-02T03:06:00Z'), 'PgToolMissing')).toMatchObject({ phase: 'Failed', reason: 'PgToolMissing', error: 'pg_dump 15 is needed …' });
  });

  it('marks a completed backup found damaged as no longer verified, so it is neither restored nor counted', () => {
    const completed = backupFixture('foodb-1', { status: completedStatus(manifest) });
    expect(isUsable(completed.status)).toBe(true);
    const damaged = backupFixture('foodb-1', { status: damagedStatus(completed, 'checksum mismatch') });
    expect(damaged.status).toMatchObject({ phase: 'Completed', verified: false, error: 'checksum mismatch', sha256: 'a'.repeat(64) });
    expect(isUsable(damaged.status)).toBe(false);
    expect(isFinished(damaged.status)).toBe(true);
    expect(isFinished(backupFixture('foodb-2').status)).toBe(false);
  });
});
