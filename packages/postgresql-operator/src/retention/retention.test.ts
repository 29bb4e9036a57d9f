import { describe, expect, it } from 'vitest';
import { parseRetentionAge } from '../api/retention-age.ts';
import type { RetentionPolicy } from '../api/resolved-postgresql-spec.ts';
import { planRetention, type RetentionInput } from './retention.ts';

const now = new Date('2025-03-01T12:00:00Z');
const hoursAgo = (hours: number): Date => new Date(now.getTime() - hours * 3_600_000);

function backup(name: string, hours: number, overrides: Partial<RetentionInput> = {}): RetentionInput {
  return { name, trigger: 'Scheduled', phase: 'Completed', verified: true, time: hoursAgo(hours), ...overrides };
}

const policy = (overrides: Partial<RetentionPolicy> = {}): RetentionPolicy => ({ keepLast: 3, keepFailed: 2, ...overrides });

function deleted(backups: RetentionInput[], p: RetentionPolicy): Record<string, string> {
  return Object.fromEntries(planRetention(backups, p, now).delete.map((v) => [v.name, v.reason]));
}

describe('planRetention', () => {
  it('keeps the newest keepLast verified scheduled backups and deletes the rest, whatever the input order', () => {
    const backups = [backup('b4', 4), backup('b1', 1), backup('b5', 5), backup('b2', 2), backup('b3', 3)];
    const plan = planRetention(backups, policy(), now);
    expect(plan.delete).toEqual([
      { name: 'b4', reason: 'BeyondKeepLast', message: 'verified backup number 4, newest first; keepLast is 3' },
      { name: 'b5', reason: 'BeyondKeepLast', message: 'verified backup number 5, newest first; keepLast is 3' },
    ]);
    expect(plan.keep.map((v) => [v.name, v.reason])).toEqual([
      ['b1', 'NewestUsable'],
      ['b2', 'WithinKeepLast'],
      ['b3', 'WithinKeepLast'],
    ]);
  });

  it('applies maxAge together with keepLast, but never deletes the newest verified backup', () => {
    const backups = [backup('old1', 30), backup('old2', 40), backup('young', 2)];
    expect(deleted(backups, policy({ maxAgeMs: parseRetentionAge('1d') }))).toEqual({
      old1: 'OlderThanMaxAge',
      old2: 'OlderThanMaxAge',
    });
    // With every backup too old (say the schedule was suspended for a month), the newest one still stays.
    expect(deleted([backup('a', 900), backup('b', 1000)], policy({ maxAgeMs: parseRetentionAge('7d') }))).toEqual({
      b: 'OlderThanMaxAge',
    });
  });

  it('keeps the newest keepFailed unusable backups for inspection; they never count towards keepLast', () => {
    const backups = [
      backup('f1', 1, { phase: 'Failed', verified: false }),
      backup('ok1', 2),
      backup('f2', 3, { phase: 'Failed', verified: false }),
      backup('damaged', 4, { verified: false }), // Completed, later found corrupted
      backup('ok2', 5),
      backup('f3', 6, { phase: 'Failed', verified: false }),
    ];
    expect(deleted(backups, policy({ keepLast: 2, keepFailed: 2 }))).toEqual({
      damaged: 'BeyondKeepFailed',
      f3: 'BeyondKeepFailed',
    });
    expect(deleted(backups, policy({ keepLast: 2, keepFailed: 0 }))).toEqual({
      f1: 'BeyondKeepFailed',
      f2: 'BeyondKeepFailed',
      damaged: 'BeyondKeepFailed',
      f3: 'BeyondKeepFailed',
    });
  });

  it('never touches backups in progress, on-demand or final backups', () => {
    const backups = [
      backup('running', 0, { phase: 'Running', verified: false }),
      backup('new', 0, { phase: undefined, verified: false }),
      backup('manual', 500, { trigger: 'OnDemand' }),
      backup('final', 600, { trigger: 'Final' }),
      backup('manual-failed', 700, { trigger: 'OnDemand', phase: 'Failed', verified: false }),
      backup('s1', 1),
      backup('s2', 2),
    ];
    const plan = planRetention(backups, policy({ keepLast: 1, keepFailed: 0, maxAgeMs: 60_000 }), now);
    expect(plan.delete.map((v) => v.name)).toEqual(['s2']);
    expect(Object.fromEntries(plan.keep.map((v) => [v.name, v.reason]))).toEqual({
      running: 'InProgress',
      new: 'InProgress',
      s1: 'NewestUsable',
      manual: 'NotScheduled',
      final: 'NotScheduled',
      'manual-failed': 'NotScheduled',
    });
  });

  it('the newest verified backup being on-demand does not shield the scheduled ones from their limits', () => {
    const backups = [backup('manual', 0, { trigger: 'OnDemand' }), backup('s1', 1), backup('s2', 2)];
    expect(deleted(backups, policy({ keepLast: 1 }))).toEqual({ s2: 'BeyondKeepLast' });
  });
});

describe('parseRetentionAge', () => {
  it('converts maxAge units to milliseconds', () => {
    expect(parseRetentionAge('90m')).toBe(90 * 60_000);
    expect(parseRetentionAge('36h')).toBe(36 * 3_600_000);
    expect(parseRetentionAge('2w')).toBe(14 * 86_400_000);
  });

  it.each(['7', '0d', '1.5h', '7days', '-1d', ''])('refuses %j as the CRD does', (text) => {
    expect(() => parseRetentionAge(text)).toThrow(/must be a whole number followed by m, h, d or w, e\.g\. 7d/);
  });
});
