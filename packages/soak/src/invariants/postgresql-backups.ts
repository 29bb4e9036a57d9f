// What the backups promise and what the stores hold: a Completed backup was verified and its object is there, and the
// stores hold nothing that no backup accounts for.
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

/** postgresql.orphanObjects: an object left in a store after the settle that no backup names and nothing retains on purpose. */
export function checkOrphanObjects(timeline: SoakTimeline): InvariantResult {
  const named = new Set(timeline.backups.flatMap((backup) => backup.location === undefined ? [] : [storedKey(backup.store, backup.location)]));
  const retained = new Set(timeline.stores.retainedOnPurpose);
  return invariantResult('postgresql.orphanObjects', timeline.stores.objects.flatMap((object): Finding[] => {
    if (named.has(storedKey(object.store, object.key)) || retained.has(object.key)) return [];
    return [{
      at: timeline.endedAt,
      evidence: `${JSON.stringify(object.key)} is in the ${object.store} store after the settle, but no PostgreSQLBackup the `
        + 'soak saw names it and it is not retained on purpose',
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

/** For the report: the objects found after the settle that are kept on purpose, which no invariant counts. */
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

/** A key is unique only within its store: a volume file and a bucket object may share one. */
function storedKey(store: BackupRecord['store'], key: string): string {
  return JSON.stringify([store, key]);
}
