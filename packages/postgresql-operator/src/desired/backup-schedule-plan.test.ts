import { CronExpressionParser } from 'cron-parser';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { resolvePostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { backupSchedulePlan } from './backup-schedule-plan.ts';
import { MAX_COUNTED_MISSED_SLOTS, scheduleDecision } from '../schedule/schedule.ts';

/** The plan as a reconcile makes it: from the spec resolved once. */
const planAt = (postgresql: PostgreSQL, now: Date) => backupSchedulePlan(postgresql, resolvePostgreSQLSpec(postgresql.spec).backup, now);

const created = '2026-01-02T03:00:30Z';

describe('backupSchedulePlan', () => {
  it('owes nothing before the first slot after creation, and says when the next one is', () => {
    const plan = planAt(postgresqlFixture({ creationTimestamp: created }), new Date('2026-01-02T03:04:00Z'));
    expect(plan).toEqual({ state: 'active', next: new Date('2026-01-02T03:05:00Z'), periodSeconds: 300 });
  });

  it('owes the latest slot, under the name of that slot', () => {
    const plan = planAt(postgresqlFixture({ creationTimestamp: created }), new Date('2026-01-02T03:05:00.500Z'));
    expect(plan).toMatchObject({ state: 'active', due: { slot: new Date('2026-01-02T03:05:00Z'), missed: 0, backupName: 'foodb-202601020305' } });
  });

  it('counts a slot as served once the status says so', () => {
    const now = new Date('2026-01-02T03:06:00Z');
    const recorded = postgresqlFixture({ creationTimestamp: created, status: { lastScheduledBackupTime: '2026-01-02T03:05:00Z' } });
    expect(planAt(recorded, now)).not.toHaveProperty('due');
    expect(planAt(postgresqlFixture({ creationTimestamp: created }), now)).toMatchObject({ due: { slot: new Date('2026-01-02T03:05:00Z') } });
  });

  it('after downtime owes one backup for the latest slot, counting the missed ones', () => {
    const postgresql = postgresqlFixture({ creationTimestamp: created, status: { lastScheduledBackupTime: '2026-01-02T03:05:00Z' } });
    expect(planAt(postgresql, new Date('2026-01-02T03:21:00Z'))).toMatchObject({ due: { slot: new Date('2026-01-02T03:20:00Z'), missed: 2 } });
  });

  it('is suspended or invalid as the spec says', () => {
    expect(planAt(postgresqlFixture({ spec: { backup: { suspend: true } } }), new Date())).toEqual({ state: 'suspended' });
    const invalid = planAt(postgresqlFixture({ spec: { backup: { schedule: '61 * * * *' } } }), new Date());
    expect(invalid.state).toBe('invalid');
    expect(invalid.state === 'invalid' ? invalid.message : '').toMatch(/^schedule "61 \* \* \* \*" is not a valid cron expression: .*; no scheduled backups are taken until it is fixed$/);
  });

  it('parses the schedule once, as the spec is resolved, however many slots it counts after downtime', () => {
    const parse = vi.spyOn(CronExpressionParser, 'parse');
    try {
      const postgresql = postgresqlFixture({ creationTimestamp: created, spec: { backup: { schedule: '* * * * *' } } });
      expect(planAt(postgresql, new Date('2026-01-03T03:00:30Z'))).toMatchObject({ due: { missed: MAX_COUNTED_MISSED_SLOTS } });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('takes a parsed schedule: a cron string cannot reach the plan or the decision', () => {
    expectTypeOf<string>().not.toExtend<Parameters<typeof backupSchedulePlan>[1]['schedule']>();
    expectTypeOf<string>().not.toExtend<Parameters<typeof scheduleDecision>[0]>();
  });
});
