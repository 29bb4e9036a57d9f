import { parseMetav1Time, requiredName } from '@k8s-operators/controller-core';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { scheduledBackupName } from './backup-name.ts';
import { scheduleDecision } from '../schedule/schedule.ts';

/** What the schedule asks for now. */
export type SchedulePlan =
  | { state: 'invalid'; message: string }
  | { state: 'suspended' }
  | {
      state: 'active';
      /** The next slot, for status and for requeueing. */
      next: Date;
      /** Seconds between the next slot and the one after it: the period an alert compares backup age with. */
      periodSeconds: number;
      /** Set when a slot is owed: its backup should be created now. */
      due?: { slot: Date; missed: number; backupName: string };
    };

/**
 * The schedule of one PostgreSQL at `now`, from its resolved `spec.backup` (the schedule parsed once):
 * `status.lastScheduledBackupTime` is the slot last served.
 */
export function backupSchedulePlan(postgresql: PostgreSQL, backup: Pick<ResolvedPostgreSQLSpec['backup'], 'schedule' | 'suspend'>, now: Date): SchedulePlan {
  const parsed = backup.schedule;
  if (!parsed.ok) return { state: 'invalid', message: `${parsed.message}; no scheduled backups are taken until it is fixed` };
  if (backup.suspend) return { state: 'suspended' };
  const lastScheduledTime = parseMetav1Time(postgresql.status?.lastScheduledBackupTime);
  const createdAt = parseMetav1Time(postgresql.metadata.creationTimestamp) ?? now;
  const decision = scheduleDecision(parsed.schedule, { createdAt, now, ...(lastScheduledTime === undefined ? {} : { lastScheduledTime }) });
  const periodSeconds = (parsed.schedule.nextAfter(decision.next).getTime() - decision.next.getTime()) / 1000;
  return {
    state: 'active',
    next: decision.next,
    periodSeconds,
    ...(decision.due === undefined
      ? {}
      : { due: { ...decision.due, backupName: scheduledBackupName(requiredName(postgresql), decision.due.slot) } }),
  };
}
