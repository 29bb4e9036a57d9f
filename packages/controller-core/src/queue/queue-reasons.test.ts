import { describe, expect, it } from 'vitest';
import { MAX_REASONS_PER_KEY, QueueReasons } from './queue-reasons.ts';

const pod = (name: string) => ({ kind: 'Pod', namespace: 'ns', name });

describe('QueueReasons', () => {
  it('keeps one entry per event and source, moved to its latest time', () => {
    const reasons = QueueReasons.of({ event: 'Updated', source: pod('a'), at: 1 }, 0);
    reasons.add({ event: 'Updated', source: pod('b'), at: 2 });
    reasons.add({ event: 'Updated', source: pod('a'), at: 3 });
    reasons.add({ event: 'Deleted', source: pod('a'), at: 4 });
    expect(reasons.list).toEqual([
      { event: 'Updated', source: pod('b'), at: 2 },
      { event: 'Updated', source: pod('a'), at: 3 },
      { event: 'Deleted', source: pod('a'), at: 4 },
    ]);
    expect(reasons.dropped).toBe(0);
  });

  it(`keeps the ${MAX_REASONS_PER_KEY} most recent distinct reasons and counts the dropped ones`, () => {
    const reasons = new QueueReasons();
    for (let i = 0; i < 11; i++) reasons.add({ event: 'Updated', source: pod(`p${i}`), at: i });
    expect(reasons.list).toHaveLength(MAX_REASONS_PER_KEY);
    expect(reasons.list.map((r) => r.source?.name)).toEqual(['p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10']);
    expect(reasons.dropped).toBe(3);
  });

  it('merges in time order and adds up dropped counts', () => {
    const older = new QueueReasons();
    for (let i = 0; i < 9; i++) older.add({ event: 'Resync', source: pod(`p${i}`), at: 10 + i });
    const newer = QueueReasons.of({ event: 'RequeueAfter', at: 5 }, 0);
    newer.merge(older);
    expect(newer.dropped).toBe(1 + 1); // one dropped in `older`, then RequeueAfter (the oldest) pushed out
    expect(newer.list[0]?.source?.name).toBe('p1');
    expect(newer.list.map((r) => r.at)).toEqual([11, 12, 13, 14, 15, 16, 17, 18]);
  });

  it('stamps reasons without a time with the time given and freezes them', () => {
    const reasons = QueueReasons.of({ event: 'Added', source: pod('a') }, 42);
    const [reason] = reasons.list;
    expect(reason).toEqual({ event: 'Added', source: pod('a'), at: 42 });
    expect(Object.isFrozen(reason)).toBe(true);
    expect(Object.isFrozen(reason?.source)).toBe(true);
  });
});
