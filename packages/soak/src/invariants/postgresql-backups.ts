// What the backups promise and what the stores hold: a Completed backup was verified and its object is there, and the
// stores hold nothing that neither an existing backup nor Retain accounts for.
import type { BackupRecord, InvariantResult, SoakTimeline, StoreContents } from '../timeline.ts';
import { timeText } from './evidence-text.ts';
import { invariantResult, type Finding } from './invariant-result.ts';
import { backupText } from './postgresql-names.ts';

/** postgresql.completedNotVerified: a backup reported Completed without having been verified restorable. */
export function checkCompletedNotVerified(timeline: SoakTimeline): InvariantResult {
  return invariantResult('postgresql.completedNotVerified', completedBackups(timeline).flatMap((backup): Finding[] => {
    if (backup.verified === true) return [];
    const verification = backup.verified === false ? 'it failed verification' : 'it was never verified';
    return [{ at: completedAt(backup, timeline), evidence: `${backupText(backup)} ${completedText(backup)}, but ${verification}` }];
  }));
}

/** postgresql.completedObjectMissing: a Completed backup whose object was not in its store when checked. */
export function checkCompletedObjectMissing(timeline: SoakTimeline): InvariantResult {
  return invariantResult('postgresql.completedObjectMissing', completedBackups(timeline).flatMap((backup): Finding[] => {
    if (backup.objectExists !== false) return [];
    return [{
      at: completedAt(backup, timeline),
      evidence: `${backupText(backup)} ${completedText(backup)}, naming ${JSON.stringify(backup.location ?? '')}, but no such object was found in the store`,
    }];
  }));
}

/**
 * postgresql.orphanObjects: an object left in a store after the settle that belongs to no PostgreSQLBackup existing then
 * and that Retain does not keep on purpose. A backup deleted (by retention, say) whose object stayed behind left one.
 */
export function checkOrphanObjects(timeline: SoakTimeline): InvariantResult {
  const accountedFor = new Set([...timeline.stores.liveBackups, ...timeline.stores.retainedOnPurpose]);
  return invariantResult('postgresql.orphanObjects', timeline.stores.objects.flatMap((object): Finding[] => {
    if (accountedFor.has(object.key)) return [];
    const formerOwner = timeline.backups.find((backup) => backup.store === object.store && backup.location === object.key);
    const owner = formerOwner === undefined ? 'no PostgreSQLBackup the soak saw names it' : `${backupText(formerOwner)} named it and no longer exists`;
    return [{
      at: timeline.endedAt,
      evidence: `${JSON.stringify(object.key)} is in the ${object.store} store after the settle, but ${owner}, and it is not retained on purpose`,
    }];
  }));
}

/** postgresql.incompleteUploads: a multipart upload left open in the bucket after the settle. */
export function checkIncompleteUploads(timeline: SoakTimeline): InvariantResult {
  return invariantResult('postgresql.incompleteUploads', timeline.stores.incompleteUploads.map((key) => {
    const owners = timeline.backups.filter((backup) => backup.store === 'bucket' && backup.location === key);
    const owner = owners.length === 0 ? 'no backup the soak saw names it' : `named by ${owners.map(backupText).join(', ')}`;
    return { at: timeline.endedAt, evidence: `A multipart upload of ${JSON.stringify(key)} was left open in the bucket after the settle; ${owner}` };
  }));
}

/** For the report: the objects found after the settle that Retain keeps on purpose (backups of deleted databases). */
export function retainedObjects(timeline: SoakTimeline): StoreContents['objects'] {
  const retained = new Set(timeline.stores.retainedOnPurpose);
  return timeline.stores.objects.filter((object) => retained.has(object.key));
}

function completedBackups(timeline: SoakTimeline): BackupRecord[] {
  return timeline.backups.filter((backup) => backup.phase === 'Completed');
}

/** When it completed; the end of the run for a backup last seen Completed without a completion time. */
function completedAt(backup: BackupRecord, timeline: SoakTimeline): number {
  return backup.completedAt ?? timeline.endedAt;
}

function completedText(backup: BackupRecord): string {
  return backup.completedAt === undefined ? 'is Completed' : `Completed at ${timeText(backup.completedAt)}`;
}
