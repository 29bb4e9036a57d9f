// How many rows a database held around a moment, from what the writer and the ready-endpoint queries recorded: the
// bounds a backup taken then must lie within. The writer numbers rows 1, 2, 3...; after a restore brought back rows
// 1..m it goes on with m + 1 on the new pod, so row numbers repeat across pods and counting acknowledgements would
// overcount after every restore. What holds instead is that the serving pod always holds exactly rows 1..n.
import type { ReadyEndpointRecord, WriterAck } from '../timeline.ts';

/** The fewest rows the serving database certainly held, and the record that shows it. */
export type LowerBound =
  | { rows: number; from: 'ack'; ack: WriterAck }
  | { rows: number; from: 'readyEndpoint'; endpoint: ReadyEndpointRecord }
  | { rows: 0; from: 'nothing' };

/** The most rows the database can have held, and the acknowledgement of the highest row by then, if any. */
export interface UpperBound { rows: number; highestAck: WriterAck | undefined }

export interface RowsHeld {
  /** What the serving database certainly held just before `at`: the lower bound for a dump started at `at`. */
  atLeast(db: string, at: number): LowerBound;
  /** The most rows a dump completed by `at` can hold. */
  atMost(db: string, at: number): UpperBound;
}

/** One database's records, each list in time order, so that a bound is a binary search: an hour acknowledges ~15k rows. */
interface DatabaseHistory {
  acks: WriterAck[];
  /** For each ack, the ack of the highest row among it and those before it. */
  highestAckSoFar: WriterAck[];
  readyEndpoints: ReadyEndpointRecord[];
}

export function rowsHeld(writerAcks: readonly WriterAck[], readyEndpoints: readonly ReadyEndpointRecord[]): RowsHeld {
  const acksByDb = Map.groupBy(writerAcks, (ack) => ack.db);
  const endpointsByDb = Map.groupBy(readyEndpoints, (endpoint) => endpoint.db);
  const histories = new Map<string, DatabaseHistory>();
  for (const db of new Set([...acksByDb.keys(), ...endpointsByDb.keys()])) {
    const acks = byTime(acksByDb.get(db) ?? []);
    histories.set(db, { acks, highestAckSoFar: highestSoFar(acks), readyEndpoints: byTime(endpointsByDb.get(db) ?? []) });
  }
  const historyOf = (db: string): DatabaseHistory => histories.get(db) ?? { acks: [], highestAckSoFar: [], readyEndpoints: [] };

  return {
    atLeast(db, at) {
      const history = historyOf(db);
      const lastAck = lastOf(history.acks, countWhile(history.acks, (ack) => ack.at < at));
      const lastReady = lastOf(history.readyEndpoints, countWhile(history.readyEndpoints, (endpoint) => endpoint.at < at));
      if (lastReady && (!lastAck || lastReady.at > lastAck.at) && lastReady.pod !== lastAck?.pod) {
        // A pod became ready after the last acknowledgement: it serves now, and the writer, which writes to a pod only
        // once it was queried, acknowledged nothing on it yet. It holds at least what the query found there (rows
        // 1..maxRow, left by its restore or an empty start); a failed query (postgresql.readyButNotServing) found nothing
        // to go by, so 0.
        return { rows: lastReady.queryError === undefined ? lastReady.maxRow : 0, from: 'readyEndpoint', endpoint: lastReady };
      }
      // Otherwise the pod that acknowledged row n still serves, and holds rows 1..n: it holds exactly 1..k for some k
      // and row n is among them. Rows leave a database only by a restore, and a restore fills a new, empty pod, which
      // would have become a ready endpoint after this acknowledgement.
      if (lastAck) return { rows: lastAck.row, from: 'ack', ack: lastAck };
      return { rows: 0, from: 'nothing' };
    },
    atMost(db, at) {
      const history = historyOf(db);
      const highestAck = lastOf(history.highestAckSoFar, countWhile(history.acks, (ack) => ack.at <= at));
      // Plus one: the writer commits one row at a time, and one may have committed without its acknowledgement
      // reaching the writer (the connection died or timed out after the commit). The writer then goes on from the
      // highest row the pod holds, so no second row can be ahead of the acknowledged ones.
      return { rows: (highestAck?.row ?? 0) + 1, highestAck };
    },
  };
}

function byTime<T extends { at: number }>(records: readonly T[]): T[] {
  return records.toSorted((a, b) => a.at - b.at);
}

function highestSoFar(acks: readonly WriterAck[]): WriterAck[] {
  const highest: WriterAck[] = [];
  for (const ack of acks) {
    const previous = highest.at(-1);
    highest.push(previous && previous.row >= ack.row ? previous : ack);
  }
  return highest;
}

/** The last of the first `count` records, if any. */
function lastOf<T>(records: readonly T[], count: number): T | undefined {
  return count === 0 ? undefined : records[count - 1];
}

/** How many of the leading `sorted` records satisfy `holds`, which holds for a prefix of them. */
function countWhile<T>(sorted: readonly T[], holds: (record: T) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const record = sorted[middle];
    if (record !== undefined && holds(record)) low = middle + 1;
    else high = middle;
  }
  return low;
}
