import { describe, expect, it } from 'vitest';
import { ReconnectBackoff } from '../src/informer/backoff.ts';

describe('ReconnectBackoff', () => {
  it('doubles its ceiling from 800 ms up to 30 s, waiting a uniform fraction of it (full jitter)', () => {
    let now = 0;
    const ceilings: number[] = [];
    const backoff = new ReconnectBackoff({ random: () => 1, now: () => (now += 1_000) });
    for (let i = 0; i < 8; i++) ceilings.push(backoff.nextDelayMs());
    expect(ceilings).toEqual([800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000]);

    const jittered = new ReconnectBackoff({ random: () => 0.25, now: () => 0 });
    expect(jittered.nextDelayMs()).toBe(200);
    expect(jittered.nextDelayMs()).toBe(400);
  });

  it('starts again from 800 ms after two minutes without a failure', () => {
    let now = 0;
    const backoff = new ReconnectBackoff({ random: () => 1, now: () => now });
    for (let i = 0; i < 5; i++) backoff.nextDelayMs();
    // Exactly two minutes is not yet "more than two minutes": the ceiling keeps growing.
    now += 120_000;
    expect(backoff.nextDelayMs()).toBe(25_600);
    now += 120_001;
    expect(backoff.nextDelayMs()).toBe(800);
  });
});
