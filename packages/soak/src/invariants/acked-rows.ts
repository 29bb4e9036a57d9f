// The writer numbers its rows 1, 2, 3... per database incarnation, so the number of rows it had acknowledged by a
// moment is also the highest row acknowledged by then: the yardstick for what a backup taken around then must hold.
import type { WriterAck } from '../timeline.ts';

export interface AckedRows {
  /** Rows of the incarnation acknowledged strictly before `at`. */
  before(db: string, incarnation: number, at: number): number;
  /** Rows of the incarnation acknowledged at or before `at`. */
  byTime(db: string, incarnation: number, at: number): number;
}

/** Counts by binary search over each incarnation's sorted acknowledgement times: a long run acknowledges millions. */
export function ackedRows(writerAcks: readonly WriterAck[]): AckedRows {
  const timesByIncarnation = new Map<string, number[]>();
  for (const ack of writerAcks) {
    const key = incarnationKey(ack.db, ack.incarnation);
    const times = timesByIncarnation.get(key);
    if (times) times.push(ack.at);
    else timesByIncarnation.set(key, [ack.at]);
  }
  for (const times of timesByIncarnation.values()) times.sort((a, b) => a - b);
  const timesOf = (db: string, incarnation: number): number[] => timesByIncarnation.get(incarnationKey(db, incarnation)) ?? [];
  return {
    before: (db, incarnation, at) => countWhile(timesOf(db, incarnation), (time) => time < at),
    byTime: (db, incarnation, at) => countWhile(timesOf(db, incarnation), (time) => time <= at),
  };
}

function incarnationKey(db: string, incarnation: number): string {
  return JSON.stringify([db, incarnation]);
}

/** How many of the leading `sorted` values satisfy `holds`, which holds for a prefix of them. */
function countWhile(sorted: readonly number[], holds: (value: number) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (holds(sorted[middle] ?? Number.NaN)) low = middle + 1;
    else high = middle;
  }
  return low;
}
