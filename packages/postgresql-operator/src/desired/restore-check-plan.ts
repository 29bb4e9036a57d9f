import { parseMetav1Time } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { ResolvedBackupVerify } from '../api/resolved-postgresql-spec.ts';
import { RESTORE_CHECK_ANNOTATION, type RestoreCheckTrigger } from '../api/restore-check.ts';
import { scheduleDecision } from '../schedule/schedule.ts';
import { newestUsable } from './desired-postgresql-status.ts';

/** A drill that is owed: why, and (on demand) the annotation value it answers. */
export interface DueRestoreCheck {
  trigger: RestoreCheckTrigger;
  /** The `exp.wheel.jp/restore-check` value an on-demand drill answers. */
  request?: string;
}

/** What the drill schedule of one PostgreSQL asks for now. */
export type RestoreCheckPlan =
  | { state: 'off' }
  | { state: 'invalid'; message: string }
  | {
      state: 'active';
      /** The next scheduled drill, for requeueing. */
      next: Date;
      /** Seconds between the next slot and the one after it: the bound the stale-drill alert doubles. */
      periodSeconds: number;
      due?: DueRestoreCheck;
      /** The backup a drill restores now: the newest usable one. Absent: nothing to drill yet (the drill stays owed). */
      target?: PostgreSQLBackup;
    };

/** When the last drill of any of the backups started: the schedule is served up to there. */
export function lastRestoreCheckTime(backups: readonly PostgreSQLBackup[]): Date | undefined {
  const times = backups.map((b) => parseMetav1Time(b.status?.restoreCheck?.time)?.getTime()).filter((t): t is number => t !== undefined);
  return times.length === 0 ? undefined : new Date(Math.max(...times));
}

/**
 * The drill owed at `now`. Its state is the backups' `status.restoreCheck`, nothing else: a drill that was interrupted
 * (its scratch pod gone, the operator restarted) recorded nothing, so it is still owed. Slots missed meanwhile are
 * made up by one drill, as backups are. On demand: a new value of the `exp.wheel.jp/restore-check` annotation that no
 * backup's drill answered yet.
 */
export function restoreCheckPlan(
  postgresql: PostgreSQL,
  verify: ResolvedBackupVerify | undefined,
  backups: readonly PostgreSQLBackup[],
  now: Date,
): RestoreCheckPlan {
  if (verify === undefined) return { state: 'off' };
  if (!verify.schedule.ok) return { state: 'invalid', message: `spec.backup.verify: ${verify.schedule.message}; no restore drills run until it is fixed` };
  const { schedule } = verify.schedule;
  const lastScheduledTime = lastRestoreCheckTime(backups);
  const createdAt = parseMetav1Time(postgresql.metadata.creationTimestamp) ?? now;
  const decision = scheduleDecision(schedule, { createdAt, now, ...(lastScheduledTime === undefined ? {} : { lastScheduledTime }) });
  const periodSeconds = (schedule.nextAfter(decision.next).getTime() - decision.next.getTime()) / 1000;
  const request = postgresql.metadata.annotations?.[RESTORE_CHECK_ANNOTATION];
  const answered = backups.some((b) => b.status?.restoreCheck?.request === request);
  const due: DueRestoreCheck | undefined =
    request !== undefined && request !== '' && !answered
      ? { trigger: 'OnDemand', request }
      : decision.due === undefined ? undefined : { trigger: 'Scheduled' };
  const target = newestUsable(backups);
  return {
    state: 'active',
    next: decision.next,
    periodSeconds,
    ...(due === undefined ? {} : { due }),
    ...(target === undefined ? {} : { target }),
  };
}
