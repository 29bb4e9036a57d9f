import { describe, expect, it } from 'vitest';
import { backupFixture } from '../../test/postgresql-fixture.ts';
import { backupsToDelete, retentionInput } from './backup-retention.ts';

const completedAt = (minute: number) => ({ phase: 'Completed' as const, verified: true, completionTime: `2026-01-02T03:${String(minute).padStart(2, '0')}:00Z` });
const retention = { keepLast: 1, keepFailed: 0 };
const now = new Date('2026-01-02T04:00:00Z');

describe('backup retention', () => {
  it('reads a backup object as planRetention sees it; a backup without status is pending, as of its creation', () => {
    expect(retentionInput(backupFixture('foodb-1'))).toEqual({ name: 'foodb-1', trigger: 'OnDemand', verified: false, time: new Date('2026-01-02T03:05:00Z') });
    expect(retentionInput(backupFixture('foodb-2', { trigger: 'Scheduled', status: completedAt(10) }))).toEqual({ name: 'foodb-2', trigger: 'Scheduled', phase: 'Completed', verified: true, time: new Date('2026-01-02T03:10:00Z') });
  });

  it('deletes scheduled backups beyond keepLast, never the newest verified one, never on-demand ones', () => {
    const backups = [
      backupFixture('s1', { trigger: 'Scheduled', status: completedAt(1) }),
      backupFixture('s2', { trigger: 'Scheduled', status: completedAt(2) }),
      backupFixture('s3', { trigger: 'Scheduled', status: completedAt(3) }),
      backupFixture('mine', { status: completedAt(0) }),
    ];
    expect(backupsToDelete(backups, retention, now).map((v) => v.name)).toEqual(['s2', 's1']);
  });

  it('leaves out backups already being deleted, so they neither count nor get deleted twice', () => {
    const backups = [
      backupFixture('s1', { trigger: 'Scheduled', status: completedAt(1) }),
      backupFixture('s2', { trigger: 'Scheduled', status: completedAt(2), deletionTimestamp: '2026-01-02T03:59:00Z' }),
    ];
    expect(backupsToDelete(backups, retention, now)).toEqual([]);
  });
});
