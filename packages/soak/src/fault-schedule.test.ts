import { describe, expect, test } from 'vitest';
import { FAULT_FREE_START_MS, planFaults } from './fault-schedule.ts';
import { seededRandom } from './random.ts';
import { FAULT_KINDS } from './timeline.ts';

describe('the fault schedule', () => {
  test('the same seed gives the same schedule, another seed another one', () => {
    expect(planFaults(10 * 60_000, seededRandom(7))).toEqual(planFaults(10 * 60_000, seededRandom(7)));
    expect(planFaults(10 * 60_000, seededRandom(7))).not.toEqual(planFaults(10 * 60_000, seededRandom(8)));
  });

  test.each([5, 10, 60])('a %i-minute run injects every kind, each operator\'s leader killed, none in the first minute, none overlapping, all within the run', (minutes) => {
    const durationMs = minutes * 60_000;
    const plan = planFaults(durationMs, seededRandom(minutes));
    expect(new Set(plan.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
    expect(new Set(plan.filter((f) => f.kind === 'leader-kill').map((f) => f.operator))).toEqual(new Set(['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator']));
    const sorted = [...plan].sort((a, b) => a.atMs - b.atMs);
    expect(sorted[0]?.atMs).toBeGreaterThanOrEqual(FAULT_FREE_START_MS);
    for (let i = 1; i < sorted.length; i++) {
      const before = sorted[i - 1];
      expect(before && before.atMs + before.holdMs).toBeLessThan(sorted[i]?.atMs ?? 0);
    }
    const last = sorted.at(-1);
    expect(last && last.atMs + last.holdMs).toBeLessThanOrEqual(durationMs);
  });

  test('an hour has three rounds, and its outages last minutes', () => {
    const plan = planFaults(60 * 60_000, seededRandom(3));
    expect(plan.filter((f) => f.kind === 'prism-outage')).toHaveLength(3);
    for (const outage of plan.filter((f) => f.kind === 'prism-outage' || f.kind === 'seaweedfs-stop')) expect(outage.holdMs).toBeGreaterThanOrEqual(3 * 60_000);
  });
});
