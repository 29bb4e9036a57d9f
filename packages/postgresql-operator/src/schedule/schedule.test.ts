import { describe, expect, it } from 'vitest';
import { MAX_COUNTED_MISSED_SLOTS, parseSchedule, scheduleDecision, type BackupSchedule } from './schedule.ts';

const at = (iso: string): Date => new Date(iso);

function schedule(expression: string): BackupSchedule {
  const parsed = parseSchedule(expression);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.schedule;
}

describe('parseSchedule', () => {
  it.each(['*/5 * * * *', '0 3 * * *', '0 0 * * MON', '15 2 1 * *', '@hourly', '@daily', '@midnight', '@weekly', '@yearly'])(
    'accepts %s',
    (expression) => {
      expect(parseSchedule(expression).ok).toBe(true);
    },
  );

  it.each([
    ['* * * *', /has 4 fields; a schedule has 5: minute hour day-of-month month day-of-week \(UTC\)/],
    ['0 * * * * *', /has 6 fields/],
    ['', /has 0 fields/],
    ['61 * * * *', /is not a valid cron expression: .*got value 61 expected range 0-59/],
    ['*/0 * * * *', /is not a valid cron expression/],
    ['a b c d e', /is not a valid cron expression/],
    ['0 0 31 2 *', /is not a valid cron expression/],
    ['@secondly', /unknown macro; use one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly/],
  ])('refuses %j with a message that says what to fix', (expression, message) => {
    const parsed = parseSchedule(expression);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });

  it('computes slots in UTC: strictly after for the next one, at-or-before for the latest', () => {
    const every5 = schedule('*/5 * * * *');
    expect(every5.nextAfter(at('2025-01-01T00:10:00Z'))).toEqual(at('2025-01-01T00:15:00Z'));
    expect(every5.nextAfter(at('2025-01-01T00:09:59.999Z'))).toEqual(at('2025-01-01T00:10:00Z'));
    expect(every5.latestAtOrBefore(at('2025-01-01T00:10:00Z'))).toEqual(at('2025-01-01T00:10:00Z'));
    expect(every5.latestAtOrBefore(at('2025-01-01T00:09:59.999Z'))).toEqual(at('2025-01-01T00:05:00Z'));
    expect(schedule('0 3 * * *').nextAfter(at('2025-01-01T05:00:00Z'))).toEqual(at('2025-01-02T03:00:00Z'));
  });
});

describe('scheduleDecision', () => {
  const every5 = schedule('*/5 * * * *');
  const createdAt = at('2025-01-01T00:01:00Z');

  it('owes nothing before the first slot after creation, and names the next one', () => {
    expect(scheduleDecision(every5, { createdAt, now: at('2025-01-01T00:04:59Z') })).toEqual({
      next: at('2025-01-01T00:05:00Z'),
    });
  });

  it('is due at a slot, once: after the slot is recorded as served it is not due again', () => {
    const now = at('2025-01-01T00:05:00.250Z');
    const first = scheduleDecision(every5, { createdAt, now });
    expect(first).toEqual({ due: { slot: at('2025-01-01T00:05:00Z'), missed: 0 }, next: at('2025-01-01T00:10:00Z') });
    expect(scheduleDecision(every5, { createdAt, lastScheduledTime: first.due?.slot, now: at('2025-01-01T00:07:00Z') })).toEqual({
      next: at('2025-01-01T00:10:00Z'),
    });
  });

  it('after downtime runs one backup for the latest slot, not one per missed slot', () => {
    const decision = scheduleDecision(every5, {
      createdAt,
      lastScheduledTime: at('2025-01-01T00:05:00Z'),
      now: at('2025-01-01T01:02:00Z'), // slots 00:10 … 01:00 were not served
    });
    expect(decision.due).toEqual({ slot: at('2025-01-01T01:00:00Z'), missed: 10 });
    expect(decision.next).toEqual(at('2025-01-01T01:05:00Z'));
    // Serving that slot settles everything missed.
    expect(scheduleDecision(every5, { createdAt, lastScheduledTime: decision.due?.slot, now: at('2025-01-01T01:03:00Z') }).due).toBeUndefined();
  });

  it('counts missed slots only up to a bound after very long downtime', () => {
    const everyMinute = schedule('* * * * *');
    const decision = scheduleDecision(everyMinute, { createdAt, now: at('2026-01-01T00:00:30Z') });
    expect(decision.due).toEqual({ slot: at('2026-01-01T00:00:00Z'), missed: MAX_COUNTED_MISSED_SLOTS });
  });

  it('ignores a recorded slot older than the object (a PostgreSQL re-created with the same name)', () => {
    const decision = scheduleDecision(every5, {
      createdAt: at('2025-06-01T00:01:00Z'),
      lastScheduledTime: at('2025-01-01T00:05:00Z'),
      now: at('2025-06-01T00:03:00Z'),
    });
    expect(decision.due).toBeUndefined();
  });
});
