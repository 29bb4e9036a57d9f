import { describe, expect, test } from 'vitest';
import type { ReadyEndpointRecord, WriterAck } from '../timeline.ts';
import { rowsHeld } from './rows-held.ts';
import { MINUTE, SECOND } from './test-timeline.ts';

// shop/orders: Pod orders-0 became ready empty at 30 s and acknowledged row n at n minutes up to row 10. Pod orders-1
// became ready at 10.5 min restored with rows 1..6, and the writer went on there with rows 7 and 8 at 11 and 12 min.
const ack = (pod: string, row: number, at: number): WriterAck => ({ db: 'shop/orders', pod, row, at });
const ready = (pod: string, at: number, maxRow: number): ReadyEndpointRecord => ({ db: 'shop/orders', pod, at, rowCount: maxRow, maxRow, contiguous: true });
const onFirstPod = Array.from({ length: 10 }, (_, index) => ack('orders-0', index + 1, (index + 1) * MINUTE));
const afterRestore = [ack('orders-1', 7, 11 * MINUTE), ack('orders-1', 8, 12 * MINUTE)];
const firstReady = ready('orders-0', 30 * SECOND, 0);
const restoredReady = ready('orders-1', 10.5 * MINUTE, 6);
// Recorded out of order, and beside another database's records, which must not count.
const rows = rowsHeld(
  [...afterRestore, ...onFirstPod, { ...ack('orders-0', 99, 5.2 * MINUTE), db: 'shop/cart' }],
  [restoredReady, firstReady, { ...ready('cart-0', 5.1 * MINUTE, 50), db: 'shop/cart' }],
);

describe('atLeast: what the serving pod certainly held just before a moment', () => {
  test('nothing recorded yet, and a database never seen, bound nothing', () => {
    expect(rows.atLeast('shop/orders', 10 * SECOND)).toEqual({ rows: 0, from: 'nothing' });
    expect(rows.atLeast('shop/gone', 5 * MINUTE)).toEqual({ rows: 0, from: 'nothing' });
  });

  test('a pod ready but not yet written to holds what its query found', () => {
    expect(rows.atLeast('shop/orders', 45 * SECOND)).toEqual({ rows: 0, from: 'readyEndpoint', endpoint: firstReady });
  });

  test('the last row acknowledged strictly before the moment, on the pod that serves', () => {
    expect(rows.atLeast('shop/orders', 5.5 * MINUTE)).toEqual({ rows: 5, from: 'ack', ack: onFirstPod[4] });
    expect(rows.atLeast('shop/orders', 5 * MINUTE)).toEqual({ rows: 4, from: 'ack', ack: onFirstPod[3] });
  });

  test('a restore after the last acknowledgement: the new pod serves, with the rows its query found', () => {
    expect(rows.atLeast('shop/orders', 10.75 * MINUTE)).toEqual({ rows: 6, from: 'readyEndpoint', endpoint: restoredReady });
  });

  test('row numbers repeat after a restore: the last row acknowledged counts, not how many were', () => {
    expect(rows.atLeast('shop/orders', 12.5 * MINUTE)).toEqual({ rows: 8, from: 'ack', ack: afterRestore[1] });
  });

  test('a new pod whose query failed bounds nothing', () => {
    const failed: ReadyEndpointRecord = { ...restoredReady, rowCount: 0, maxRow: 0, queryError: 'timeout' };
    const withFailedQuery = rowsHeld(onFirstPod, [firstReady, failed]);
    expect(withFailedQuery.atLeast('shop/orders', 10.75 * MINUTE)).toEqual({ rows: 0, from: 'readyEndpoint', endpoint: failed });
  });
});

describe('atMost: the most rows a dump completed by a moment can hold', () => {
  test('one more than the highest row acknowledged by then, at the moment itself included', () => {
    expect(rows.atMost('shop/orders', 7 * MINUTE)).toEqual({ rows: 8, highestAck: onFirstPod[6] });
    expect(rows.atMost('shop/orders', 7 * MINUTE - 1)).toEqual({ rows: 7, highestAck: onFirstPod[5] });
  });

  test('nothing acknowledged yet: one row may have committed unacknowledged', () => {
    expect(rows.atMost('shop/orders', 30 * SECOND)).toEqual({ rows: 1, highestAck: undefined });
  });

  test('the highest row on any pod, though a restore brought the serving pod back to fewer', () => {
    expect(rows.atMost('shop/orders', 12.5 * MINUTE)).toEqual({ rows: 11, highestAck: onFirstPod[9] });
  });
});
