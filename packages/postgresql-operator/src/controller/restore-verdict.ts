import type { LatestRestoreResult } from '../restore/restore-latest.ts';
import type { SkippedBackup } from '../restore/candidates.ts';
import type { RestoreMetricResult } from '../metrics/postgresql-metrics.ts';
import { CLEARS_BY_ITSELF, RETRY_CANNOT_FIX, type DatabaseProblem } from './database-errors.ts';

/**
 * What a restore attempt on a new pod means for the pod, the `Restored` condition, Events and metrics. Pure: the
 * controller does what the verdict says.
 */

export interface RestoreEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  note: string;
}

export interface RestoreVerdict {
  /** Label the pod `appReady=ok`: its database may serve. */
  serve: boolean;
  /** The `Restored` condition. */
  condition: { status: 'True' | 'False'; reason: string; message: string };
  events: RestoreEvent[];
  metric: RestoreMetricResult;
  /** Backups whose dump no longer matches its manifest: their objects are marked `verified: false`. */
  corrupted: { backup: string; message: string }[];
}

function skippedEvents(skipped: readonly SkippedBackup[], fallback: string): RestoreEvent[] {
  return skipped.map(({ key, reason, message }) => ({
    type: 'Warning',
    reason: reason === 'Corrupted' ? 'BackupCorrupted' : 'BackupSkipped',
    note: `backup ${key.backup} was not restored (${reason}): ${message}; ${fallback}`,
  }));
}

function corruptedOf(skipped: readonly SkippedBackup[]): RestoreVerdict['corrupted'] {
  return skipped.filter((s) => s.reason === 'Corrupted').map((s) => ({ backup: s.key.backup, message: s.message }));
}

export function restoreVerdict(pod: string, result: LatestRestoreResult): RestoreVerdict {
  switch (result.outcome) {
    case 'Restored': {
      const backup = result.backup.key.backup;
      const message = `pod ${pod} was restored from backup ${backup} (taken ${result.backup.finishedAt}) before it received traffic`;
      return {
        serve: true,
        condition: { status: 'True', reason: 'Restored', message },
        events: [...skippedEvents(result.skipped, `restored the older backup ${backup} instead`), { type: 'Normal', reason: 'Restored', note: message }],
        metric: 'restored',
        corrupted: corruptedOf(result.skipped),
      };
    }
    case 'NoBackup':
      return {
        serve: true,
        condition: { status: 'True', reason: 'NoBackup', message: `pod ${pod} serves a new, empty database: there is no backup to restore yet` },
        events: [],
        metric: 'no_backup',
        corrupted: [],
      };
    case 'NotEmpty':
      return {
        serve: true,
        condition: {
          status: 'True',
          reason: 'DataPresent',
          message: `pod ${pod} serves the data it already holds (${result.found.slice(0, 3).join(', ')}); nothing was restored over it`,
        },
        events: [],
        metric: 'not_empty',
        corrupted: [],
      };
    case 'NoUsableBackup': {
      const message =
        `pod ${pod} was not restored and receives no traffic: none of the ${result.skipped.length} stored backups can be ` +
        'restored (see the BackupCorrupted and BackupSkipped Events); delete the unusable PostgreSQLBackups to start with an ' +
        'empty database instead';
      return {
        serve: false,
        condition: { status: 'False', reason: 'NoUsableBackup', message },
        events: [...skippedEvents(result.skipped, 'no older backup could be restored either'), { type: 'Warning', reason: 'NoUsableBackup', note: message }],
        metric: 'no_usable_backup',
        corrupted: corruptedOf(result.skipped),
      };
    }
  }
}

/**
 * A restore that threw: the pod stays unlabelled and the restore is tried again with back-off, except for a problem no
 * retry can fix, whose message says what to change instead.
 */
export function restoreFailureVerdict(pod: string, problem: DatabaseProblem): RestoreVerdict {
  const retrying = RETRY_CANNOT_FIX.has(problem.reason) ? '' : '; retrying';
  const message = `pod ${pod} was not restored and receives no traffic${retrying}: ${problem.message}`;
  return {
    serve: false,
    condition: { status: 'False', reason: problem.reason, message },
    events: [{ type: 'Warning', reason: problem.reason, note: message }],
    // A restore that could not start yet (the backup store or the new pod's server not reachable) is a wait that
    // clears by itself, not a failed restore: a backup store still starting beside a database made at install time
    // must not page anyone (the soak saw PostgreSQLRestoreFailing fire so). One that never clears keeps the pod
    // unlabelled, which PostgreSQLRestoreBlocked reports after 15 minutes.
    metric: CLEARS_BY_ITSELF.has(problem.reason) ? 'waiting' : 'failed',
    corrupted: [],
  };
}
