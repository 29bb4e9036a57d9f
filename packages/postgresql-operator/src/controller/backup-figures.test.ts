import { describe, expect, it } from 'vitest';
import { backupFixture } from '../../test/postgresql-fixture.ts';
import { databaseBackupFigures } from './backup-figures.ts';

const schedule = { state: 'active' as const, next: new Date('2026-01-02T03:15:00Z'), periodSeconds: 300 };
const good = backupFixture('foodb-1', { status: { phase: 'Completed', verified: true, completionTime: '2026-01-02T03:05:00Z', sizeBytes: 2048 } });
const bad = backupFixture('foodb-2', { status: { phase: 'Failed', completionTime: '2026-01-02T03:10:00Z', error: 'pg_dump failed' } });
const goodAgain = backupFixture('foodb-3', { status: { phase: 'Completed', verified: true, completionTime: '2026-01-02T03:15:00Z', sizeBytes: 4096 } });

describe('databaseBackupFigures', () => {
  it('gives the last success, its size and the schedule period; the failure time is 0 without a failure', () => {
    expect(databaseBackupFigures([good], schedule)).toEqual({ lastSuccessSeconds: Date.parse('2026-01-02T03:05:00Z') / 1000, lastFailureSeconds: 0, lastSizeBytes: 2048, schedulePeriodSeconds: 300 });
  });

  it('sets the failure time while the newest backup failed, and resets it to 0 once one succeeds (cloudnative-pg#4512)', () => {
    expect(databaseBackupFigures([good, bad], schedule).lastFailureSeconds).toBe(Date.parse('2026-01-02T03:10:00Z') / 1000);
    expect(databaseBackupFigures([good, bad, goodAgain], schedule)).toMatchObject({ lastFailureSeconds: 0, lastSizeBytes: 4096 });
  });

  it('has no success, size or period when there is none', () => {
    expect(databaseBackupFigures([], { state: 'suspended' })).toEqual({ lastFailureSeconds: 0 });
  });
});
