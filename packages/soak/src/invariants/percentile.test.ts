import { expect, test } from 'vitest';
import { percentile } from './percentile.ts';

test('nearest rank: always a measured value, whatever the order given', () => {
  const values = [40, 10, 30, 20, 50];
  expect([0, 20, 21, 50, 90, 100].map((p) => percentile(values, p))).toEqual([10, 10, 20, 30, 50, 50]);
  expect(percentile([7], 99)).toBe(7);
  // Rank 7 of 100 exactly, which p/100 × n (7.000000000000001) would round up to rank 8.
  expect(percentile(Array.from({ length: 100 }, (_, index) => index + 1), 7)).toBe(7);
  expect(values).toEqual([40, 10, 30, 20, 50]);
});

test('no values have no percentile, and p outside 0..100 is a mistake', () => {
  expect(percentile([], 50)).toBeUndefined();
  expect(() => percentile([1], 101)).toThrow(RangeError);
  expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
});
