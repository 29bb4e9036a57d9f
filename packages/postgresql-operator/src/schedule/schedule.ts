import { CronExpression, CronExpressionParser, type CronFieldCollection } from 'cron-parser';

/**
 * Backup schedules: 5-field cron expressions in UTC, or the macros Kubernetes CronJobs accept. The API server checks
 * only the shape; this is the full check (the controller reports a bad schedule as a condition) and the arithmetic of
 * when the next backup is due.
 */

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Missed slots are counted up to this many (for a message); an operator down for months does not loop for long. */
export const MAX_COUNTED_MISSED_SLOTS = 100;

/**
 * A schedule parsed once (`parseSchedule`): its slots are computed from the parsed fields, so a reconcile that asks for
 * many of them (the missed-slot count) never parses the expression again.
 */
export interface BackupSchedule {
  readonly expression: string;
  /** The first slot strictly after `time`. */
  nextAfter(time: Date): Date;
  /** The last slot at or before `time`, if the schedule has one. */
  latestAtOrBefore(time: Date): Date | undefined;
}

export type ScheduleParseResult = { ok: true; schedule: BackupSchedule } | { ok: false; message: string };

/** An iterator over the parsed schedule's slots, starting at `currentDate`: no parsing. */
function slotsFrom(fields: CronFieldCollection, currentDate: Date): CronExpression {
  return new CronExpression(fields, { currentDate, tz: 'UTC' });
}

/** Parses and fully validates a schedule; a failure carries a message that says what to fix. */
export function parseSchedule(expression: string): ScheduleParseResult {
  const trimmed = expression.trim();
  const fields = MACROS[trimmed] ?? trimmed;
  const count = fields === '' ? 0 : fields.split(/\s+/).length;
  if (trimmed.startsWith('@') && MACROS[trimmed] === undefined) {
    return {
      ok: false,
      message: `schedule ${JSON.stringify(expression)}: unknown macro; use one of ${Object.keys(MACROS).join(', ')}`,
    };
  }
  if (count !== 5) {
    return {
      ok: false,
      message:
        `schedule ${JSON.stringify(expression)} has ${count} field${count === 1 ? '' : 's'}; a schedule has 5: minute hour ` +
        'day-of-month month day-of-week (UTC), e.g. "*/5 * * * *"',
    };
  }
  let parsed: CronFieldCollection;
  try {
    const cron = CronExpressionParser.parse(fields, { currentDate: new Date(0), tz: 'UTC' });
    // Finding a first slot is part of the check, so a schedule that is accepted always has one.
    cron.next();
    parsed = cron.fields;
  } catch (error) {
    return {
      ok: false,
      message: `schedule ${JSON.stringify(expression)} is not a valid cron expression: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return {
    ok: true,
    schedule: {
      expression: trimmed,
      nextAfter: (time) => slotsFrom(parsed, time).next().toDate(),
      latestAtOrBefore: (time) => {
        // prev() is strictly before its start; starting 1 ms later makes a slot at exactly `time` count.
        const slots = slotsFrom(parsed, new Date(time.getTime() + 1));
        return slots.hasPrev() ? slots.prev().toDate() : undefined;
      },
    },
  };
}

export interface ScheduleState {
  /** The slot of the last scheduled backup started (`status.lastScheduledBackupTime`), if any. */
  lastScheduledTime?: Date;
  /** When the PostgreSQL was created: slots before it are not owed. */
  createdAt: Date;
  now: Date;
}

export interface ScheduleDecision {
  /**
   * Set when a backup is due now: for `slot`, the latest slot not yet served. `missed` counts the earlier unserved
   * slots (up to MAX_COUNTED_MISSED_SLOTS), which are not made up: after downtime there is one backup, not one per slot.
   */
  due?: { slot: Date; missed: number };
  /** When the next slot comes, for status.nextScheduledBackupTime and for requeueing. */
  next: Date;
}

export function scheduleDecision(schedule: BackupSchedule, state: ScheduleState): ScheduleDecision {
  const { now, createdAt, lastScheduledTime } = state;
  const next = schedule.nextAfter(now);
  const servedUpTo = lastScheduledTime !== undefined && lastScheduledTime > createdAt ? lastScheduledTime : createdAt;
  const slot = schedule.latestAtOrBefore(now);
  if (slot === undefined || slot <= servedUpTo) return { next };
  let missed = 0;
  for (
    let earlier = schedule.nextAfter(servedUpTo);
    earlier < slot && missed < MAX_COUNTED_MISSED_SLOTS;
    earlier = schedule.nextAfter(earlier)
  ) {
    missed += 1;
  }
  return { due: { slot, missed }, next };
}
