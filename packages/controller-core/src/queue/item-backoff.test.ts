import { describe, expect, it } from 'vitest';
import { exponentialDelayMs, ItemExponentialBackoff } from './item-backoff.ts';

describe('exponentialDelayMs', () => {
  it('multiplies the base by the factor per further failure and caps at the maximum', () => {
    const delay = { baseDelayMs: 800, maxDelayMs: 30_000 };
    expect([1, 2, 3, 6, 7, 2000].map((n) => exponentialDelayMs(n, delay))).toEqual([800, 1_600, 3_200, 25_600, 30_000, 30_000]);
    expect([1, 2, 3].map((n) => exponentialDelayMs(n, { ...delay, factor: 3 }))).toEqual([800, 2_400, 7_200]);
    expect(exponentialDelayMs(0, delay)).toBe(800);
  });
});

describe('ItemExponentialBackoff', () => {
  it('doubles from 5 ms per failure of a key and caps at 1000 s by default', () => {
    const backoff = new ItemExponentialBackoff();
    const delays = Array.from({ length: 20 }, () => backoff.when('ns/a'));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[17]).toBe(655_360);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[19]).toBe(1_000_000);
    expect(backoff.retries('ns/a')).toBe(20);
  });

  it('counts each key on its own', () => {
    const backoff = new ItemExponentialBackoff();
    backoff.when('a');
    backoff.when('a');
    expect(backoff.when('b')).toBe(5);
    expect(backoff.retries('a')).toBe(2);
    expect(backoff.retries('b')).toBe(1);
  });

  it('starts again at the base delay after forget', () => {
    const backoff = new ItemExponentialBackoff({ baseDelayMs: 100, maxDelayMs: 250 });
    expect([backoff.when('a'), backoff.when('a'), backoff.when('a')]).toEqual([100, 200, 250]);
    backoff.forget('a');
    expect(backoff.retries('a')).toBe(0);
    expect(backoff.when('a')).toBe(100);
  });

  it('stays at the cap after very many failures instead of overflowing', () => {
    const backoff = new ItemExponentialBackoff();
    let last = 0;
    for (let i = 0; i < 2000; i++) last = backoff.when('a');
    expect(last).toBe(1_000_000);
  });

  it('spreads each delay by the jitter fraction either way', () => {
    let r = 0;
    const backoff = new ItemExponentialBackoff({ baseDelayMs: 1_000, maxDelayMs: 300_000, jitter: 0.1, random: () => r });
    expect(backoff.when('a')).toBe(900);
    r = 0.5;
    expect(backoff.when('a')).toBe(2_000);
    r = 0.99;
    expect(backoff.when('a')).toBe(4_392);
  });

  it('rejects nonsensical options', () => {
    expect(() => new ItemExponentialBackoff({ jitter: 1 })).toThrow(/jitter/);
    expect(() => new ItemExponentialBackoff({ baseDelayMs: 0 })).toThrow(/baseDelayMs/);
    expect(() => new ItemExponentialBackoff({ baseDelayMs: 10, maxDelayMs: 5 })).toThrow(/maxDelayMs/);
  });
});
