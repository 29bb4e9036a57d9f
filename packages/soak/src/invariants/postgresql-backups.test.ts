import { describe, expect, test } from 'vitest';
import type { BackupRecord, StoreContents } from '../timeline.ts';
import { checkCompletedNotVerified, checkCompletedObjectMissing, checkIncompleteUploads, checkOrphanObjects, retainedObjects } from './postgresql-backups.ts';
import { emptyTimeline, HOUR, MINUTE } from './test-timeline.ts';

const completed: BackupRecord = {
  db: 'shop/orders', name: 'b1', store: 'bucket', phase: 'Completed', verified: true,
  startAt: 5 * MINUTE, completedAt: 7 * MINUTE, location: 'orders/b1.dump', objectExists: true,
};
const onVolume: BackupRecord = { ...completed, name: 'b2', store: 'volume', location: 'orders-b2.dump' };
const B1 = 'backup b1 of database shop/orders in the bucket store';
const stores = (contents: Partial<StoreContents>): StoreContents => ({ objects: [], incompleteUploads: [], liveBackups: [], retainedOnPurpose: [], ...contents });

describe('postgresql.completedNotVerified', () => {
  test('verified Completed backups, and unverified ones that are not Completed, are no violation', () => {
    const timeline = emptyTimeline({ backups: [completed, { ...completed, name: 'b3', phase: 'Failed', verified: false }, { ...completed, name: 'b4', phase: 'Running', verified: undefined }] });
    expect(checkCompletedNotVerified(timeline)).toEqual({ invariant: 'postgresql.completedNotVerified', violations: [] });
  });

  test('Completed but failed verification, or never verified', () => {
    const timeline = emptyTimeline({ backups: [{ ...completed, verified: false }, { ...completed, verified: undefined, completedAt: undefined }] });
    expect(checkCompletedNotVerified(timeline).violations).toEqual([
      { invariant: 'postgresql.completedNotVerified', at: 7 * MINUTE, evidence: `${B1} Completed at 1970-01-01T00:07:00.000Z, but it failed verification` },
      { invariant: 'postgresql.completedNotVerified', at: HOUR, evidence: `${B1} is Completed, but it was never verified` },
    ]);
  });
});

describe('postgresql.completedObjectMissing', () => {
  test('found, or not checked, is no violation; not found is', () => {
    const timeline = emptyTimeline({ backups: [completed, { ...completed, name: 'b3', objectExists: undefined }, { ...onVolume, objectExists: false }, { ...completed, phase: 'Failed', objectExists: false }] });
    expect(checkCompletedObjectMissing(timeline).violations).toEqual([{
      invariant: 'postgresql.completedObjectMissing',
      at: 7 * MINUTE,
      evidence: 'backup b2 of database shop/orders in the volume store Completed at 1970-01-01T00:07:00.000Z, naming "orders-b2.dump", but no such object was found in the store',
    }]);
  });
});

describe('postgresql.orphanObjects and postgresql.incompleteUploads', () => {
  const accountedFor = emptyTimeline({
    backups: [completed, onVolume],
    stores: stores({
      objects: [{ store: 'bucket', key: 'orders/b1.dump' }, { store: 'volume', key: 'orders-b2.dump' }, { store: 'bucket', key: 'gone-db/b0.dump' }],
      liveBackups: ['orders/b1.dump', 'orders-b2.dump'],
      retainedOnPurpose: ['gone-db/b0.dump'],
    }),
  });

  test('objects of existing backups, or retained on purpose, are no violation, and only the retained ones are listed', () => {
    expect(checkOrphanObjects(accountedFor)).toEqual({ invariant: 'postgresql.orphanObjects', violations: [] });
    expect(checkIncompleteUploads(accountedFor)).toEqual({ invariant: 'postgresql.incompleteUploads', violations: [] });
    expect(retainedObjects(accountedFor)).toEqual([{ store: 'bucket', key: 'gone-db/b0.dump' }]);
  });

  test('an object left by a backup that was deleted, or that no backup ever named, is an orphan', () => {
    const deletedByRetention: BackupRecord = { ...completed, name: 'b0', location: 'orders/b0.dump' };
    const timeline = emptyTimeline({
      backups: [deletedByRetention, completed],
      stores: stores({
        objects: [{ store: 'bucket', key: 'orders/b1.dump' }, { store: 'bucket', key: 'orders/b0.dump' }, { store: 'volume', key: 'stray.dump' }],
        liveBackups: ['orders/b1.dump'],
      }),
    });
    expect(checkOrphanObjects(timeline).violations.map((violation) => [violation.at, violation.evidence])).toEqual([
      [HOUR, '"orders/b0.dump" is in the bucket store after the settle, but backup b0 of database shop/orders in the bucket store named it and '
        + 'no longer exists, and it is not retained on purpose'],
      [HOUR, '"stray.dump" is in the volume store after the settle, but no PostgreSQLBackup the soak saw names it, and it is not retained on purpose'],
    ]);
  });

  test('every multipart upload left open, with the backup that names it if any', () => {
    const timeline = emptyTimeline({ backups: [completed], stores: stores({ incompleteUploads: ['orders/b1.dump', 'orders/b5.dump'] }) });
    expect(checkIncompleteUploads(timeline).violations.map((violation) => violation.evidence)).toEqual([
      `A multipart upload of "orders/b1.dump" was left open in the bucket after the settle; named by ${B1}`,
      'A multipart upload of "orders/b5.dump" was left open in the bucket after the settle; no backup the soak saw names it',
    ]);
  });
});
