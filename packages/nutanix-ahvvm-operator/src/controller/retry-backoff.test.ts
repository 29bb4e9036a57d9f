import { expect, test } from 'vitest';
import { RetryBackoff } from './retry-backoff.ts';

test('doubles per key up to the maximum, spread by ±10 %, and starts over after a reset', () => {
  const backoff = new RetryBackoff({ baseMs: 1_000, maxMs: 5_000, random: () => 0.5 });
  expect([1, 2, 3, 4].map(() => backoff.next('a'))).toEqual([1_000, 2_000, 4_000, 5_000]);
  expect(backoff.next('b')).toBe(1_000);
  backoff.reset('a');
  expect(backoff.next('a')).toBe(1_000);
  expect(new RetryBackoff({ random: () => 0 }).next('a')).toBe(900);
});
