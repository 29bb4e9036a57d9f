import { isFinished, isUsable, type BackupPhase, type BackupTrigger } from '../api/backup-lifecycle.ts';
import type { RetentionPolicy } from '../api/resolved-postgresql-spec.ts';

/**
 * Which backups to delete. Pure: it sees the backups of one PostgreSQL and the policy, and returns a decision with a
 * reason for every backup, so the controller can delete, log and explain exactly what it did.
 *
 * Rules, in order:
 * 1. A backup still Pending or Running is kept.
 * 2. Only Scheduled backups are managed. OnDemand and Final backups are kept until someone deletes them (a backup taken
 *    before a migration must not disappear an hour later).
 * 3. The newest usable backup (Completed and verified) of any trigger is never deleted, whatever the limits: after a
 *    long suspend, or with a tiny maxAge, there is still something to restore.
 * 4. Usable scheduled backups: the newest `keepLast` are kept, except those older than `maxAge`; the rest are deleted.
 * 5. Unusable scheduled backups (Failed, or Completed but found damaged): the newest `keepFailed` are kept so their
 *    error can be read; older ones are deleted. They never count towards keepLast.
 */

export interface RetentionInput {
  /** The PostgreSQLBackup's name. */
  name: string;
  trigger: BackupTrigger;
  /** Absent (no status yet) counts as Pending. */
  phase?: BackupPhase;
  verified: boolean;
  /** When it completed or failed; for one that never started, its creation time. */
  time: Date;
}

export type RetentionReason =
  | 'InProgress'
  | 'NotScheduled'
  | 'NewestUsable'
  | 'WithinKeepLast'
  | 'BeyondKeepLast'
  | 'OlderThanMaxAge'
  | 'WithinKeepFailed'
  | 'BeyondKeepFailed';

export interface RetentionVerdict {
  name: string;
  reason: RetentionReason;
  message: string;
}

export interface RetentionPlan {
  keep: RetentionVerdict[];
  delete: RetentionVerdict[];
}


/** Newest first; ties broken by name so the plan never depends on input order. */
function newestFirst(a: RetentionInput, b: RetentionInput): number {
  return b.time.getTime() - a.time.getTime() || b.name.localeCompare(a.name);
}

export function planRetention(backups: readonly RetentionInput[], policy: RetentionPolicy, now: Date): RetentionPlan {
  const plan: RetentionPlan = { keep: [], delete: [] };
  const sorted = [...backups].sort(newestFirst);
  const newestUsable = sorted.find(isUsable);
  let usableSeen = 0;
  let unusableSeen = 0;
  for (const backup of sorted) {
    const { name } = backup;
    if (!isFinished(backup)) {
      plan.keep.push({ name, reason: 'InProgress', message: 'still in progress' });
      continue;
    }
    if (backup.trigger !== 'Scheduled') {
      plan.keep.push({ name, reason: 'NotScheduled', message: `${backup.trigger} backups are kept until deleted` });
      continue;
    }
    if (isUsable(backup)) {
      usableSeen += 1;
      const ageMs = now.getTime() - backup.time.getTime();
      if (backup === newestUsable) {
        plan.keep.push({ name, reason: 'NewestUsable', message: 'the newest verified backup is never deleted' });
      } else if (usableSeen > policy.keepLast) {
        plan.delete.push({
          name,
          reason: 'BeyondKeepLast',
          message: `verified backup number ${usableSeen}, newest first; keepLast is ${policy.keepLast}`,
        });
      } else if (policy.maxAgeMs !== undefined && ageMs > policy.maxAgeMs) {
        plan.delete.push({
          name,
          reason: 'OlderThanMaxAge',
          message: `completed ${backup.time.toISOString()}, older than maxAge`,
        });
      } else {
        plan.keep.push({ name, reason: 'WithinKeepLast', message: `within the newest ${policy.keepLast}` });
      }
      continue;
    }
    unusableSeen += 1;
    if (unusableSeen > policy.keepFailed) {
      plan.delete.push({
        name,
        reason: 'BeyondKeepFailed',
        message: `failed backup number ${unusableSeen}, newest first; keepFailed is ${policy.keepFailed}`,
      });
    } else {
      plan.keep.push({ name, reason: 'WithinKeepFailed', message: `within the newest ${policy.keepFailed} failed` });
    }
  }
  return plan;
}
