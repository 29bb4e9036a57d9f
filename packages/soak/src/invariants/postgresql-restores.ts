// What a database restored from a backup serves the moment it becomes a ready endpoint: only after its restore
// completed, at least what the backup must hold, and nothing the backup cannot hold.
import type { BackupRecord, InvariantResult, ReadyEndpointRecord, SoakTimeline } from '../timeline.ts';
import { countText, durationText, timeText } from './evidence-text.ts';
import { invariantResult, type Finding } from './invariant-result.ts';
import { backupText, databaseText } from './postgresql-names.ts';
import { rowsHeld, type LowerBound, type UpperBound } from './rows-held.ts';

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
 * what the database certainly held when the backup started. Also an endpoint naming a backup the soak never saw.
 */
export function checkFewerRowsThanBackup(timeline: SoakTimeline): InvariantResult {
  const rows = rowsHeld(timeline.writerAcks, timeline.readyEndpoints);
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
    // Status times are whole seconds, truncated, so the dump started no earlier than startAt: what the database
    // certainly held just before startAt, the dump found.
    const lowerBound = rows.atLeast(backup.db, backup.startAt);
    if (lowerBound.from === 'nothing' || endpoint.rowCount >= lowerBound.rows) return [];
    return [{
      at: endpoint.at,
      evidence: `${endpointText(endpoint)}, restored from ${backupText(backup)}, and served ${countText(endpoint.rowCount, 'row')}; but just `
        + `before the backup started at ${timeText(backup.startAt)} the database held at least rows 1..${lowerBound.rows} `
        + `(${lowerBoundText(lowerBound)}): at least ${countText(lowerBound.rows - endpoint.rowCount, 'row')} lost`,
    }];
  }));
}

/**
 * postgresql.mixedRestore: a restored endpoint whose rows are not exactly 1..maxRow (a mix of two backups, or a
 * partial restore), or whose highest row is above any the database can have held when the backup completed.
 */
export function checkMixedRestore(timeline: SoakTimeline): InvariantResult {
  const rows = rowsHeld(timeline.writerAcks, timeline.readyEndpoints);
  return invariantResult('postgresql.mixedRestore', timeline.readyEndpoints.flatMap((endpoint): Finding[] => {
    const backup = restoredBackup(timeline.backups, endpoint);
    if (!backup || endpoint.queryError !== undefined) return [];
    const problems: string[] = [];
    if (!endpoint.contiguous) {
      problems.push(`its ${endpoint.rowCount} rows are not exactly rows 1..${endpoint.maxRow} each once`);
    }
    // A backup never seen to complete gives no upper bound.
    if (backup.completedAt !== undefined) {
      // Status times are whole seconds, truncated: the dump completed before completedAt + 1 s.
      const completedBy = backup.completedAt + 1000;
      const upperBound = rows.atMost(backup.db, completedBy);
      if (endpoint.maxRow > upperBound.rows) {
        problems.push(`its highest row, ${endpoint.maxRow}, cannot be from the backup: it completed before ${timeText(completedBy)} `
          + `(its status says ${timeText(backup.completedAt)}, in whole seconds), and by then ${upperBoundText(upperBound)}`);
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
  return `Pod ${endpoint.pod} of ${databaseText(endpoint.db)} became a ready endpoint at ${timeText(endpoint.at)}`;
}

/** Which record shows the rows a database held. */
function lowerBoundText(bound: Exclude<LowerBound, { from: 'nothing' }>): string {
  if (bound.from === 'ack') return `Pod ${bound.ack.pod} had acknowledged row ${bound.ack.row} at ${timeText(bound.ack.at)}`;
  return `Pod ${bound.endpoint.pod} had become a ready endpoint at ${timeText(bound.endpoint.at)} holding them, and nothing `
    + 'was acknowledged on it since';
}

function upperBoundText(bound: UpperBound): string {
  const acknowledged = bound.highestAck === undefined
    ? 'no row had been acknowledged'
    : `the highest row acknowledged on any pod was ${bound.highestAck.row} (Pod ${bound.highestAck.pod} at ${timeText(bound.highestAck.at)})`;
  return `${acknowledged}, so it holds at most row ${bound.rows} (one more than acknowledged may have committed)`;
}
