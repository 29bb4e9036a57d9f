import { describe, expect, test } from 'vitest';
import type { BackupRecord, ReadyEndpointRecord, SoakTimeline, WriterAck } from '../timeline.ts';
import { checkFewerRowsThanBackup, checkMixedRestore, checkReadyButNotServing, checkServedBeforeRestore } from './postgresql-restores.ts';
import { emptyTimeline, MINUTE, SECOND } from './test-timeline.ts';

// shop/orders was served by Pod orders-0, ready empty at 30 s, which acknowledged row n at n minutes; backup b1
// started after row 5 and completed after row 7, so it holds at least rows 1..5 and no row above 8 (7 acknowledged,
// and one more may have committed unacknowledged). Pod orders-1 was restored from it at 20 min.
const ack = (pod: string, row: number, at: number): WriterAck => ({ db: 'shop/orders', pod, row, at });
const writerAcks: WriterAck[] = Array.from({ length: 10 }, (_, index) => ack('orders-0', index + 1, (index + 1) * MINUTE));
const b1: BackupRecord = {
  db: 'shop/orders', name: 'b1', store: 'bucket', phase: 'Completed', verified: true,
  startAt: 5.5 * MINUTE, completedAt: 7 * MINUTE, location: 'orders/b1.dump', objectExists: true,
};
const firstPod: ReadyEndpointRecord = { db: 'shop/orders', pod: 'orders-0', at: 30 * SECOND, rowCount: 0, maxRow: 0, contiguous: true };
const restored: ReadyEndpointRecord = {
  db: 'shop/orders', pod: 'orders-1', at: 20 * MINUTE, restoredFrom: 'b1', restoreCompletedAt: 19 * MINUTE,
  rowCount: 6, maxRow: 6, contiguous: true,
};
const fresh: ReadyEndpointRecord = { db: 'shop/cart', pod: 'cart-0', at: MINUTE, rowCount: 0, maxRow: 0, contiguous: true };
const withEndpoints = (...readyEndpoints: ReadyEndpointRecord[]) => emptyTimeline({ writerAcks, backups: [b1], readyEndpoints: [firstPod, ...readyEndpoints] });

const ENDPOINT = 'Pod orders-1 of database shop/orders became a ready endpoint at 1970-01-01T00:20:00.000Z';
const B1 = 'backup b1 of database shop/orders in the bucket store';
const onPod = (pod: string): string => ENDPOINT.replace('orders-1', pod);

/** The boundary of postgresql.fewerRowsThanBackup: a restored pod serving `held` rows is fine, one row fewer is this violation. */
function expectRowsLostBelow(timeline: (rowCount: number) => SoakTimeline, held: number, evidence: string): void {
  expect(checkFewerRowsThanBackup(timeline(held)).violations).toEqual([]);
  expect(checkFewerRowsThanBackup(timeline(held - 1)).violations.map((violation) => violation.evidence)).toEqual([evidence]);
}

test('a restore within its backup\'s bounds, served after it completed, and an endpoint never restored, break none of them', () => {
  const timeline = withEndpoints(restored, fresh, { ...restored, pod: 'orders-2', rowCount: 5, maxRow: 5 }, { ...restored, pod: 'orders-3', rowCount: 8, maxRow: 8 });
  for (const check of [checkServedBeforeRestore, checkFewerRowsThanBackup, checkMixedRestore, checkReadyButNotServing]) {
    expect(check(timeline).violations).toEqual([]);
  }
});

describe('postgresql.servedBeforeRestore', () => {
  test('ready before the restore completed, or with no completion recorded', () => {
    const timeline = withEndpoints(
      { ...restored, restoreCompletedAt: 20 * MINUTE + 1500 },
      { ...restored, pod: 'orders-2', restoreCompletedAt: undefined },
      { ...restored, pod: 'orders-3', restoreCompletedAt: 20 * MINUTE },
    );
    const result = checkServedBeforeRestore(timeline);
    expect(result.invariant).toBe('postgresql.servedBeforeRestore');
    expect(result.violations.map((violation) => violation.evidence)).toEqual([
      `${ENDPOINT}, restored from backup b1, but the restore completed only at 1970-01-01T00:20:01.500Z, 1.5 s later`,
      `${onPod('orders-2')}, restored from backup b1, but the operator never recorded the restore as complete`,
    ]);
  });
});

describe('postgresql.fewerRowsThanBackup', () => {
  test('fewer rows than the serving pod had acknowledged before the backup started', () => {
    expect(checkFewerRowsThanBackup(withEndpoints({ ...restored, rowCount: 3, maxRow: 3 })).violations).toEqual([{
      invariant: 'postgresql.fewerRowsThanBackup',
      at: 20 * MINUTE,
      evidence: `${ENDPOINT}, restored from ${B1}, and served 3 rows; but just before the backup started at 1970-01-01T00:05:30.000Z `
        + 'the database held at least rows 1..5 (Pod orders-0 had acknowledged row 5 at 1970-01-01T00:05:00.000Z): at least 2 rows lost',
    }]);
  });

  test('a row acknowledged exactly as the backup started is not counted in what it must hold', () => {
    const startedWithRow5 = { ...b1, startAt: 5 * MINUTE };
    const timeline = emptyTimeline({ writerAcks, backups: [startedWithRow5], readyEndpoints: [firstPod, { ...restored, rowCount: 4, maxRow: 4 }] });
    expect(checkFewerRowsThanBackup(timeline).violations).toEqual([]);
  });

  describe('around an earlier restore: Pod orders-1, restored from b1 with rows 1..6, became ready at 10.5 min', () => {
    const earlierRestore: ReadyEndpointRecord = { ...restored, at: 10.5 * MINUTE, restoreCompletedAt: 10.4 * MINUTE };
    const b2: BackupRecord = { ...b1, name: 'b2', startAt: 10.75 * MINUTE, completedAt: 11 * MINUTE, location: 'orders/b2.dump' };
    const restoredFrom = (backup: BackupRecord, rowCount: number): ReadyEndpointRecord =>
      ({ ...restored, pod: 'orders-2', restoredFrom: backup.name, rowCount, maxRow: rowCount });

    test('a backup started after it, before any acknowledgement on it, must hold the rows it came up with, not the 10 before', () => {
      const timeline = (rowCount: number) => emptyTimeline({ writerAcks, backups: [b1, b2], readyEndpoints: [firstPod, earlierRestore, restoredFrom(b2, rowCount)] });
      expectRowsLostBelow(timeline, 6,
        `${onPod('orders-2')}, restored from backup b2 of database shop/orders in the bucket store, and served 5 rows; but just before `
          + 'the backup started at 1970-01-01T00:10:45.000Z the database held at least rows 1..6 (Pod orders-1 had become a ready '
          + 'endpoint at 1970-01-01T00:10:30.000Z holding them, and nothing was acknowledged on it since): at least 1 row lost');
    });

    test('a new pod whose query failed bounds nothing', () => {
      const failed: ReadyEndpointRecord = { ...earlierRestore, rowCount: 0, maxRow: 0, queryError: 'timeout' };
      const timeline = emptyTimeline({ writerAcks, backups: [b1, b2], readyEndpoints: [firstPod, failed, restoredFrom(b2, 0)] });
      expect(checkFewerRowsThanBackup(timeline).violations).toEqual([]);
    });

    test('row numbers repeat after it: rows 7 and 8 again on the new pod are 8 rows held, not 12 acknowledged', () => {
      const b3: BackupRecord = { ...b1, name: 'b3', startAt: 12.5 * MINUTE, completedAt: 13 * MINUTE, location: 'orders/b3.dump' };
      const acksThenRepeats = [...writerAcks, ack('orders-1', 7, 11 * MINUTE), ack('orders-1', 8, 12 * MINUTE)];
      const timeline = (rowCount: number) => emptyTimeline({
        writerAcks: acksThenRepeats, backups: [b1, b3], readyEndpoints: [firstPod, earlierRestore, restoredFrom(b3, rowCount)],
      });
      expect(checkMixedRestore(timeline(8)).violations).toEqual([]);
      expectRowsLostBelow(timeline, 8,
        `${onPod('orders-2')}, restored from backup b3 of database shop/orders in the bucket store, and served 7 rows; but just before `
          + 'the backup started at 1970-01-01T00:12:30.000Z the database held at least rows 1..8 (Pod orders-1 had acknowledged row 8 '
          + 'at 1970-01-01T00:12:00.000Z): at least 1 row lost');
    });
  });

  test('a backup the soak never saw is a violation even when the query failed', () => {
    const violations = checkFewerRowsThanBackup(withEndpoints({ ...restored, restoredFrom: 'b9', queryError: 'connection refused' })).violations;
    expect(violations.map((violation) => violation.evidence)).toEqual([
      `${ENDPOINT}, restored from backup b9 by the operator's account, a backup the soak never saw: the operator named a backup `
        + 'that does not exist, or one the soak failed to record',
    ]);
  });

  test('no bound from a backup never seen to start, and no count from a failed query', () => {
    const neverStarted = { ...b1, startAt: undefined };
    expect(checkFewerRowsThanBackup(emptyTimeline({ writerAcks, backups: [neverStarted], readyEndpoints: [{ ...restored, rowCount: 0 }] })).violations).toEqual([]);
    expect(checkFewerRowsThanBackup(withEndpoints({ ...restored, rowCount: 0, queryError: 'timeout' })).violations).toEqual([]);
  });

  test('a backup of the endpoint\'s own database wins over a namesake in another', () => {
    const namesake: BackupRecord = { ...b1, db: 'other/orders', startAt: 0 };
    const timeline = emptyTimeline({ writerAcks, backups: [namesake, b1], readyEndpoints: [{ ...restored, rowCount: 3, maxRow: 3 }] });
    expect(checkFewerRowsThanBackup(timeline).violations).toHaveLength(1);
  });
});

describe('postgresql.mixedRestore', () => {
  const aboveTheBound = 'cannot be from the backup: it completed before 1970-01-01T00:07:01.000Z (its status says 1970-01-01T00:07:00.000Z, '
    + 'in whole seconds), and by then the highest row acknowledged on any pod was 7 (Pod orders-0 at 1970-01-01T00:07:00.000Z), '
    + 'so it holds at most row 8 (one more than acknowledged may have committed)';

  test('rows that are not exactly 1..maxRow', () => {
    expect(checkMixedRestore(withEndpoints({ ...restored, rowCount: 5, maxRow: 6, contiguous: false })).violations).toEqual([{
      invariant: 'postgresql.mixedRestore',
      at: 20 * MINUTE,
      evidence: `${ENDPOINT}, restored from ${B1}, but its 5 rows are not exactly rows 1..6 each once`,
    }]);
  });

  test('a highest row above the bound, alone and together with gaps', () => {
    const violations = checkMixedRestore(withEndpoints(
      { ...restored, rowCount: 9, maxRow: 9 },
      { ...restored, pod: 'orders-2', rowCount: 8, maxRow: 10, contiguous: false },
    )).violations;
    expect(violations.map((violation) => violation.evidence)).toEqual([
      `${ENDPOINT}, restored from ${B1}, but its highest row, 9, ${aboveTheBound}`,
      `${onPod('orders-2')}, restored from ${B1}, but its 8 rows are not exactly rows 1..10 each once; and its highest row, 10, ${aboveTheBound}`,
    ]);
  });

  test('an acknowledgement within the second the completion time was truncated by may be in the backup; one after it not', () => {
    // b1 completed at 7:00.something, its status says 7:00; row 8 was acknowledged at 7:00.600, row 9 only at 7:01.500.
    const racing = [...writerAcks.slice(0, 7), ack('orders-0', 8, 7 * MINUTE + 600), ack('orders-0', 9, 7 * MINUTE + 1500)];
    const timeline = (maxRow: number) => emptyTimeline({ writerAcks: racing, backups: [b1], readyEndpoints: [{ ...restored, rowCount: maxRow, maxRow }] });
    expect(checkMixedRestore(timeline(9)).violations).toEqual([]);
    expect(checkMixedRestore(timeline(10)).violations.map((violation) => violation.evidence)).toEqual([
      `${ENDPOINT}, restored from ${B1}, but its highest row, 10, cannot be from the backup: it completed before 1970-01-01T00:07:01.000Z `
        + '(its status says 1970-01-01T00:07:00.000Z, in whole seconds), and by then the highest row acknowledged on any pod was 8 '
        + '(Pod orders-0 at 1970-01-01T00:07:00.600Z), so it holds at most row 9 (one more than acknowledged may have committed)',
    ]);
  });

  test('a backup completed before any acknowledgement holds at most the one row that may have committed; one never seen to complete gives no bound', () => {
    const early = { ...b1, startAt: 10 * SECOND, completedAt: 20 * SECOND };
    expect(checkMixedRestore(emptyTimeline({ writerAcks, backups: [early], readyEndpoints: [{ ...restored, rowCount: 2, maxRow: 2 }] })).violations.map((violation) => violation.evidence)).toEqual([
      `${ENDPOINT}, restored from ${B1}, but its highest row, 2, cannot be from the backup: it completed before 1970-01-01T00:00:21.000Z `
        + '(its status says 1970-01-01T00:00:20.000Z, in whole seconds), and by then no row had been acknowledged, so it holds at most row 1 '
        + '(one more than acknowledged may have committed)',
    ]);
    expect(checkMixedRestore(emptyTimeline({ writerAcks, backups: [{ ...b1, completedAt: undefined }], readyEndpoints: [{ ...restored, rowCount: 10, maxRow: 10 }] })).violations).toEqual([]);
  });

  test('an endpoint whose query failed, or restored from an unknown backup, is judged elsewhere', () => {
    expect(checkMixedRestore(withEndpoints({ ...restored, maxRow: 99, contiguous: false, queryError: 'timeout' }, { ...restored, restoredFrom: 'b9', contiguous: false })).violations).toEqual([]);
  });
});

describe('postgresql.readyButNotServing', () => {
  test('a ready endpoint whose query failed, restored or not', () => {
    const violations = checkReadyButNotServing(withEndpoints({ ...restored, queryError: 'FATAL: the database system is starting up' }, { ...fresh, at: 30 * SECOND, queryError: 'timeout' })).violations;
    expect(violations).toEqual([
      { invariant: 'postgresql.readyButNotServing', at: 30 * SECOND, evidence: 'Pod cart-0 of database shop/cart became a ready endpoint at 1970-01-01T00:00:30.000Z, but the query through it failed: timeout' },
      { invariant: 'postgresql.readyButNotServing', at: 20 * MINUTE, evidence: `${ENDPOINT}, but the query through it failed: FATAL: the database system is starting up` },
    ]);
  });
});
