import { describe, expect, it } from 'vitest';
import { backupFixture, postgresqlFixture } from '../../test/postgresql-fixture.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { PostgreSQLSpec } from '../api/postgresql-resource.ts';
import { resolvePostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { restoreCheckPlan } from './restore-check-plan.ts';

// foodb was created 2026-01-02T03:00Z; drills at 04:00 every day.
const verify = { schedule: '0 4 * * *' };
const good = (name: string, completionTime: string, restoreCheck?: NonNullable<PostgreSQLBackup['status']>['restoreCheck']): PostgreSQLBackup =>
  backupFixture(name, { status: { phase: 'Completed', completionTime, verified: true, ...(restoreCheck === undefined ? {} : { restoreCheck }) } });
const passedAt = (time: string, request?: string) => ({ time, durationSeconds: 3, result: 'Passed' as const, trigger: request === undefined ? 'Scheduled' as const : 'OnDemand' as const, ...(request === undefined ? {} : { request }) });

function plan(backups: PostgreSQLBackup[], now: string, options: { spec?: Partial<PostgreSQLSpec>; annotations?: Record<string, string> } = {}) {
  const postgresql = postgresqlFixture({ spec: options.spec ?? { backup: { verify } } });
  if (options.annotations !== undefined) postgresql.metadata.annotations = options.annotations;
  return restoreCheckPlan(postgresql, resolvePostgreSQLSpec(postgresql.spec).backup.verify, backups, new Date(now));
}

describe('restoreCheckPlan', () => {
  it('is off without spec.backup.verify, and says why with a schedule that cannot be parsed', () => {
    expect(plan([], '2026-01-03T05:00:00Z', { spec: {} })).toEqual({ state: 'off' });
    expect(plan([], '2026-01-03T05:00:00Z', { spec: { backup: { verify: { schedule: '0 25 * * *' } } } })).toMatchObject({ state: 'invalid', message: expect.stringContaining('spec.backup.verify') as string });
  });

  it('owes no drill before the first slot, and one at each slot, on the newest usable backup', () => {
    const backups = [good('foodb-1', '2026-01-02T03:05:00Z'), good('foodb-2', '2026-01-02T03:35:00Z'), backupFixture('foodb-3', { status: { phase: 'Failed', completionTime: '2026-01-02T03:40:00Z' } })];
    expect(plan(backups, '2026-01-02T03:50:00Z')).toMatchObject({ state: 'active', next: new Date('2026-01-02T04:00:00Z'), periodSeconds: 86_400 });
    expect(plan(backups, '2026-01-02T03:50:00Z')).not.toHaveProperty('due');
    const due = plan(backups, '2026-01-02T04:00:01Z');
    expect(due).toMatchObject({ due: { trigger: 'Scheduled' } });
    expect(due.state === 'active' && due.target?.metadata.name).toBe('foodb-2');
  });

  it('stays owed until a drill records a result (an interrupted one records none), then waits for the next slot', () => {
    const unchecked = [good('foodb-2', '2026-01-02T03:35:00Z')];
    expect(plan(unchecked, '2026-01-02T09:00:00Z')).toMatchObject({ due: { trigger: 'Scheduled' } });
    const checked = [good('foodb-2', '2026-01-02T03:35:00Z', passedAt('2026-01-02T04:00:05Z'))];
    expect(plan(checked, '2026-01-02T09:00:00Z')).not.toHaveProperty('due');
    // Any result serves the slot: a failed drill is not run again and again before the next one.
    const failed = [good('foodb-2', '2026-01-02T03:35:00Z', { ...passedAt('2026-01-02T04:00:05Z'), result: 'Failed', reason: 'RestoreFailed', error: 'x' })];
    expect(plan(failed, '2026-01-02T09:00:00Z')).not.toHaveProperty('due');
    expect(plan(checked, '2026-01-03T04:00:01Z')).toMatchObject({ due: { trigger: 'Scheduled' } });
  });

  it('owes a drill while there is no usable backup, with nothing to restore until one completes', () => {
    const p = plan([backupFixture('foodb-1', { status: { phase: 'Running' } })], '2026-01-02T04:10:00Z');
    expect(p).toMatchObject({ state: 'active', due: { trigger: 'Scheduled' } });
    expect(p).not.toHaveProperty('target');
  });

  it('runs one on demand for each new value of exp.wheel.jp/restore-check, answered once', () => {
    const checked = [good('foodb-2', '2026-01-02T03:35:00Z', passedAt('2026-01-02T04:00:05Z'))];
    expect(plan(checked, '2026-01-02T09:00:00Z', { annotations: { 'exp.wheel.jp/restore-check': 'before-upgrade' } })).toMatchObject({ due: { trigger: 'OnDemand', request: 'before-upgrade' } });
    const answered = [good('foodb-2', '2026-01-02T03:35:00Z', passedAt('2026-01-02T09:00:05Z', 'before-upgrade'))];
    expect(plan(answered, '2026-01-02T09:10:00Z', { annotations: { 'exp.wheel.jp/restore-check': 'before-upgrade' } })).not.toHaveProperty('due');
    expect(plan(answered, '2026-01-02T09:10:00Z', { annotations: { 'exp.wheel.jp/restore-check': '' } })).not.toHaveProperty('due');
  });
});
