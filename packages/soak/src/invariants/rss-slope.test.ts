import { describe, expect, test } from 'vitest';
import type { OperatorName, ProcessSample } from '../timeline.ts';
import { checkMemoryLeak, LEAK_SLOPE_MIB_PER_HOUR, rssSlopes } from './rss-slope.ts';
import { emptyTimeline, MINUTE } from './test-timeline.ts';

/**
 * A sample a minute from `fromMinute` to `toMinute` of one process (the container `container` of `pod`, by default the
 * pod's first), leading unless said, RSS from `startMiB` growing `mibPerHour`, wobbling ±1 MiB like a GC.
 */
function samples(operator: OperatorName, pod: string, fromMinute: number, toMinute: number, startMiB: number, mibPerHour: number, container = `docker://${pod}-1`, leader = true): ProcessSample[] {
  return Array.from({ length: toMinute - fromMinute + 1 }, (_, index) => ({
    operator, pod, container, leader, at: (fromMinute + index) * MINUTE, rssMiB: startMiB + (mibPerHour * index) / 60 + (index % 2 === 0 ? 1 : -1), openFds: 20, sockets: 5,
  }));
}

const WARMUP_ENDS_AT = 10 * MINUTE;

describe('rssSlopes', () => {
  test('per operator, after the warm-up, from the pod sampled longest; judged only over at least 20 minutes', () => {
    const timeline = emptyTimeline({
      warmupEndsAt: WARMUP_ENDS_AT,
      processSamples: [
        // The run's warm-up (0-9 min) and a pod the fault killed at 30 min are left out; its successor, after its own
        // warm-up (31-40 min), lives longest.
        ...samples('maintpage-operator', 'mp-a', 0, 30, 60, 120),
        ...samples('maintpage-operator', 'mp-b', 31, 100, 100, 2),
        ...samples('postgresql-operator', 'pg-a', 10, 39, 90, 30),
      ],
    });
    const slopes = rssSlopes(timeline);
    expect(slopes.map(({ operator, pod, startAt, spanMinutes, judged }) => ({ operator, pod, startAt, spanMinutes, judged }))).toEqual([
      { operator: 'maintpage-operator', pod: 'mp-b', startAt: 41 * MINUTE, spanMinutes: 59, judged: true },
      { operator: 'postgresql-operator', pod: 'pg-a', startAt: 20 * MINUTE, spanMinutes: 19, judged: false },
    ]);
    // The ±1 MiB wobble moves a fitted slope a little, and a short span's the most.
    expect(slopes[0]?.slopeMiBPerHour).toBeCloseTo(2, 0);
    expect(slopes[0]).toMatchObject({ startMiB: 100 + 20 / 60 + 1, endMiB: 100 + 138 / 60 - 1 });
    expect(Math.abs((slopes[1]?.slopeMiBPerHour ?? 0) - 30)).toBeLessThan(1);
  });

  // The local hour of 2026-11-29 (seed 1266728094): the Nutanix operator's container restarted at 44.8 min went from
  // 92 to 101 MiB in its first minute and to 107 over the next ten, then held. Judged from its start, a restarted
  // process's warm-up reads as a leak.
  test('a restarted process\'s own warm-up is left out, as the run\'s is', () => {
    const restartedAt = 30;
    const timeline = emptyTimeline({
      warmupEndsAt: WARMUP_ENDS_AT,
      processSamples: [
        ...samples('nutanix-ahvvm-operator', 'nx-a', 0, restartedAt - 1, 100, 0),
        ...samples('nutanix-ahvvm-operator', 'nx-a', restartedAt, restartedAt + 9, 92, 90, 'docker://nx-a-2'),
        ...samples('nutanix-ahvvm-operator', 'nx-a', restartedAt + 10, 75, 107, 0, 'docker://nx-a-2'),
      ],
    });
    expect(rssSlopes(timeline)).toMatchObject([{ container: 'docker://nx-a-2', startAt: (restartedAt + 10) * MINUTE, spanMinutes: 35, judged: true }]);
    expect(Math.abs(rssSlopes(timeline)[0]?.slopeMiBPerHour ?? 99)).toBeLessThan(1);
    expect(checkMemoryLeak(timeline).violations).toEqual([]);
  });

  // The same hour: the PostgreSQL operator's follower (container …-212) sat near 100 MiB and, on taking the lead at
  // 49 min, stepped to about 120 and held; fitted over 21 min from its start, that was 96.7 MiB/h.
  test('a follower that takes the lead warms up again from then: its step up is not a leak', () => {
    const pod = 'postgresql-operator-controller-manager-69dc95cdc9-swpt9';
    const timeline = emptyTimeline({
      warmupEndsAt: WARMUP_ENDS_AT,
      processSamples: [
        ...samples('postgresql-operator', pod, 0, 29, 100, 0, 'docker://swpt9-1', false),
        ...samples('postgresql-operator', pod, 30, 70, 120, 0, 'docker://swpt9-1', true),
      ],
    });
    expect(rssSlopes(timeline)).toMatchObject([{ container: 'docker://swpt9-1', startAt: 40 * MINUTE, spanMinutes: 30, judged: true }]);
    expect(checkMemoryLeak(timeline).violations).toEqual([]);
    // A follower's samples alone, never leading, are judged from its own warm-up.
    const follower = emptyTimeline({ warmupEndsAt: WARMUP_ENDS_AT, processSamples: samples('postgresql-operator', pod, 0, 60, 100, 12, 'docker://swpt9-1', false) });
    expect(checkMemoryLeak(follower).violations).toHaveLength(1);
  });

  test('a single sample has no slope', () => {
    expect(rssSlopes(emptyTimeline({ processSamples: samples('nutanix-ahvvm-operator', 'nx-a', 5, 5, 100, 0) }))).toEqual([
      { operator: 'nutanix-ahvvm-operator', container: 'docker://nx-a-1', pod: 'nx-a', startAt: 5 * MINUTE, startMiB: 101, endMiB: 101, slopeMiBPerHour: 0, spanMinutes: 0, judged: false },
    ]);
  });
});

describe('operators.memoryLeak', () => {
  test('judged slopes at or under the threshold, and steep ones too short to judge, are no violation', () => {
    const timeline = emptyTimeline({
      warmupEndsAt: WARMUP_ENDS_AT,
      processSamples: [
        ...samples('maintpage-operator', 'mp-a', 0, 120, 100, LEAK_SLOPE_MIB_PER_HOUR - 1),
        ...samples('postgresql-operator', 'pg-a', 10, 25, 100, 200),
      ],
    });
    expect(checkMemoryLeak(timeline)).toEqual({ invariant: 'operators.memoryLeak', violations: [] });
  });

  // The local hour of 2026-11-29 (seed 1043590480) called the PostgreSQL operator's pod bnb6l a leak, 9.7 MiB/h over
  // 46 min: the soak had SIGKILLed its container three times in that span, and each new process warmed up again from
  // about 86 MiB to about 100 (the last one took over as leader at the end). Within any one process's life the RSS
  // did not trend; the slope was drawn across four processes. These are that pod's figures.
  test('a container killed and restarted in the same Pod is a new process: no slope is drawn across its restarts', () => {
    const pod = 'postgresql-operator-controller-manager-69dc95cdc9-bnb6l';
    const lives = [[10, 19, 100, -48], [20, 30, 86, 60], [31, 40, 97, -11], [41, 56, 96, 80]] as const;
    const timeline = emptyTimeline({
      warmupEndsAt: WARMUP_ENDS_AT,
      processSamples: lives.flatMap(([from, to, startMiB, mibPerHour], index) => samples('postgresql-operator', pod, from, to, startMiB, mibPerHour, `docker://bnb6l-${String(index + 1)}`)),
    });
    expect(checkMemoryLeak(timeline)).toEqual({ invariant: 'operators.memoryLeak', violations: [] });
    // The longest life after its warm-up is the one judged, and it is too short to judge; the Pod as a whole would
    // have been.
    expect(rssSlopes(timeline)).toMatchObject([{ operator: 'postgresql-operator', pod, container: 'docker://bnb6l-4', spanMinutes: 5, judged: false }]);
  });

  test('a judged slope above the threshold', () => {
    const timeline = emptyTimeline({ warmupEndsAt: WARMUP_ENDS_AT, processSamples: samples('nutanix-ahvvm-operator', 'nx-a', 0, 10 + 2 * 60, 100, 12) });
    expect(checkMemoryLeak(timeline).violations).toEqual([{
      invariant: 'operators.memoryLeak',
      at: WARMUP_ENDS_AT,
      evidence: 'nutanix-ahvvm-operator pod nx-a (container docker://nx-a-1) grew 12.0 MiB/h by least squares (more than 8 MiB/h is a leak): from 103.0 MiB at '
        + '1970-01-01T00:10:00.000Z to 127.0 MiB 2 h later',
    }]);
  });
});
