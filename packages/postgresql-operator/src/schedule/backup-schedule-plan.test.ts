import { describe, expect, it } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import { backupSchedulePlan } from './backup-schedule-plan.ts';

const created = '2026-01-02T03:00:30Z';

describe('backupSchedulePlan', () => {
  it('owes nothing before the first slot after creation, and says when the next one is', () => {
    const plan = backupSchedulePlan(postgresqlFixture({ creationTimestamp: created }), new Date('2026-01-02T03:04:00Z'));
    expect(plan).toEqual({ state: 'active', next: new Date('2026-01-02T03:05:00Z'), periodSeconds: 300 });
  });

  it('owes the latest slot, under the name of that slot', () => {
    const plan = backupSchedulePlan(postgresqlFixture({ creationTimestamp: created }), new Date('2026-01-02T03:05:00.500Z'));
    expect(plan).toMatchObject({ state: 'active', due: { slot: new Date('2026-01-02T03:05:00Z'), missed: 0, backupName: 'foodb-202601020305' } });
  });

  it('counts a slot as served once the status says so', () => {
    const now = new Date('2026-01-02T03:06:00Z');
    const recorded = postgresqlFixture({ creationTimestamp: created, status: { lastScheduledBackupTime: '2026-01-02T03:05:00Z' } });
    expect(backupSchedulePlan(recorded, now)).not.toHaveProperty('due');
    expect(backupSchedulePlan(postgresqlFixture({ creationTimestamp: created }), now)).toMatchObject({ due: { slot: new Date('2026-01-02T03:05:00Z') } });
  });

  it('after downtime owes one backup for the latest slot, counting the missed ones', () => {
    const postgresql = postgresqlFixture({ creationTimestamp: created, status: { lastScheduledBackupTime: '2026-01-02T03:05:00Z' } });
    expect(backupSchedulePlan(postgresql, new Date('2026-01-02T03:21:00Z'))).toMatchObject({ due: { slot: new Date('2026-01-02T03:20:00Z'), missed: 2 } });
  });

  it('is suspended or invalid as the spec says', () => {
    expect(backupSchedulePlan(postgresqlFixture({ spec: { backup: { suspend: true } } }), new Date())).toEqual({ state: 'suspended' });
    const invalid = backupSchedulePlan(postgresqlFixture({ spec: { backup: { schedule: '61 * * * *' } } }), new Date());
    expect(invalid.state).toBe('invalid');
    expect(invalid.state === 'invalid' ? invalid.message : '').toMatch(/^schedule "61 \* \* \* \*" is not a valid cron expression: .*; no scheduled backups are taken until it is fixed$/);
  });
});
