// What a database restored from a backup serves the moment it becomes a ready endpoint: only after its restore
// completed, at least what the backup must hold, and nothing the backup cannot hold.
import type { BackupRecord, InvariantResult, ReadyEndpointRecord, SoakTimeline } from '../timeline.ts';
import { ackedRows } from './acked-rows.ts';
import { durationText, timeText } from './evidence-text.ts';
import { invariantResult, type Finding } from './invariant-result.ts';
import { backupText, databaseText } from './postgresql-names.ts';

/** postgresql.servedBeforeRestore: a restored endpoint was ready before the operator recorded its restore complete. */
export function checkServedBeforeRestore(timeline: SoakTimeline): InvariantResult {
  return invariantResult('postgresql.servedBeforeRestore', timeline.readyEndpoints.flatMap((endpoint): Finding[] => {
    if (endpoint.restoredFrom === undefined) return [];
    const completed = endpoint.restoreCompletedAt;
    if (completed !== undefined && completed <= endpoint.at) return [];
    const when = completed === undefined
      ? 'the operator never recorded the restore as complete'
      : `the restore completed only at ${timeText(completed)}, ${durationText(completed - endpoint.at)} later`;
    return [{ at: endpoint.at, evidence: `${endpointText(endpoint)}, restored from backup ${endpoint.restoredFrom}, but ${when}` }];
  }));
}

/**
 * postgresql.fewerRowsThanBackup: a restored endpoint served fewer rows than its backup must hold, which is at least
 * the rows acknowledged before the backup started. Also an endpoint naming a backup the soak never saw.
 */
export function checkFewerRowsThanBackup(timeline: SoakTimeline): InvariantResult {
  const acked = ackedRows(timeline.writerAcks);
  return invariantResult('postgresql.fewerRowsThanBackup', timeline.readyEndpoints.flatMap((endpoint): Finding[] => {
    if (endpoint.restoredFrom === undefined) return [];
    const backup = restoredBackup(timeline.backups, endpoint);
    if (!backup) {
      return [{
        at: endpoint.at,
        evidence: `${endpointText(endpoint)}, restored from backup ${endpoint.restoredFrom} by the operator's account, a backup `
          + 'the soak never saw: the operator named a backup that does not exist, or one the soak failed to record',
      }];
    }
    // A failed query counted nothing (postgresql.readyButNotServing), and a backup never seen to start gives no bound.
    if (endpoint.queryError !== undefined || backup.startAt === undefined) return [];
    const lowerBound = acked.before(backup.db, backup.incarnation, backup.startAt);
    if (endpoint.rowCount >= lowerBound) return [];
    return [{
      at: endpoint.at,
      evidence: `${endpointText(endpoint)}, restored from ${backupText(backup)}, and served ${endpoint.rowCount} rows; the writer `
        + `had ${lowerBound} rows acknowledged before the backup started at ${timeText(backup.startAt)}: `
        + `at least ${lowerBound - endpoint.rowCount} acknowledged rows lost`,
    }];
  }));
}

/**
 * postgresql.mixedRestore: a restored endpoint whose rows are not exactly 1..maxRow (a mix of two backups, or a
 * partial restore), or whose highest row was acknowledged only after the backup completed, so cannot be from it.
 */
export function checkMixedRestore(timeline: SoakTimeline): InvariantResult {
  const acked = ackedRows(timeline.writerAcks);
  return invariantResult('postgresql.mixedRestore', timeline.readyEndpoints.flatMap((endpoint): Finding[] => {
    const backup = restoredBackup(timeline.backups, endpoint);
    if (!backup || endpoint.queryError !== undefined) return [];
    const problems: string[] = [];
    if (!endpoint.contiguous) {
      problems.push(`its ${endpoint.rowCount} rows are not exactly rows 1..${endpoint.maxRow} each once`);
    }
    // A backup never seen to complete gives no upper bound.
    if (backup.completedAt !== undefined) {
      const upperBound = acked.byTime(backup.db, backup.incarnation, backup.completedAt);
      if (endpoint.maxRow > upperBound) {
        problems.push(`its highest row is ${endpoint.maxRow}, but only ${upperBound} rows had been acknowledged when the `
          + `backup completed at ${timeText(backup.completedAt)}`);
      }
    }
    if (problems.length === 0) return [];
    return [{ at: endpoint.at, evidence: `${endpointText(endpoint)}, restored from ${backupText(backup)}, but ${problems.join('; and ')}` }];
  }));
}

/** postgresql.readyButNotServing: an endpoint was ready but the query through it failed. */
export function checkReadyButNotServing(timeline: SoakTimeline): InvariantResult {
  return invariantResult('postgresql.readyButNotServing', timeline.readyEndpoints.flatMap((endpoint): Finding[] => {
    if (endpoint.queryError === undefined) return [];
    return [{ at: endpoint.at, evidence: `${endpointText(endpoint)}, but the query through it failed: ${endpoint.queryError}` }];
  }));
}

/**
 * The backup an endpoint says it was restored from. Names are unique only per namespace, so one of the endpoint's
 * own database wins over a namesake of another database.
 */
function restoredBackup(backups: readonly BackupRecord[], endpoint: ReadyEndpointRecord): BackupRecord | undefined {
  if (endpoint.restoredFrom === undefined) return undefined;
  const namesakes = backups.filter((backup) => backup.name === endpoint.restoredFrom);
  return namesakes.find((backup) => backup.db === endpoint.db) ?? namesakes[0];
}

function endpointText(endpoint: ReadyEndpointRecord): string {
  return `Pod ${endpoint.pod} of ${databaseText(endpoint.db, endpoint.incarnation)} became a ready endpoint at ${timeText(endpoint.at)}`;
}
