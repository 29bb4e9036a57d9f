import { expect, test } from 'vitest';
import { RestoreBackoff } from './restore-backoff.ts';

test('failed restores wait 2 s, doubling up to 5 min', () => {
  const backoff = new RestoreBackoff();
  expect(backoff.waitMs('pod', 'v1', 0)).toBe(0);
  expect(backoff.failed('pod', 'v1', 0)).toBe(2_000);
  expect(backoff.waitMs('pod', 'v1', 500)).toBe(1_500);
  expect(backoff.failed('pod', 'v1', 2_000)).toBe(4_000);
  for (let i = 0; i < 10; i++) backoff.failed('pod', 'v1', 0);
  expect(backoff.failed('pod', 'v1', 0)).toBe(300_000);
  backoff.succeeded('pod');
  expect(backoff.waitMs('pod', 'v1', 0)).toBe(0);
});

test('a change of the inputs (a fixed Secret, a new backup) allows a try at once', () => {
  const backoff = new RestoreBackoff();
  backoff.failed('pod', 'secret@1', 0);
  expect(backoff.waitMs('pod', 'secret@1', 0)).toBe(2_000);
  expect(backoff.waitMs('pod', 'secret@2', 0)).toBe(0);
  expect(backoff.waitMs('other', 'secret@1', 0)).toBe(0);
  backoff.retain(new Set(['other']));
  expect(backoff.waitMs('pod', 'secret@1', 0)).toBe(0);
});

test('a problem that clears by itself (a store down for a while) is tried again at least every 30 s', () => {
  const backoff = new RestoreBackoff();
  const waits = Array.from({ length: 12 }, () => backoff.failed('pod', 'v1', 0, { clearsByItself: true }));
  expect(waits.slice(0, 5)).toEqual([2_000, 4_000, 8_000, 16_000, 30_000]);
  expect(Math.max(...waits)).toBe(30_000);
  // The count goes on: a problem that then needs someone backs off as far as any other.
  for (let i = 0; i < 3; i++) backoff.failed('pod', 'v1', 0);
  expect(backoff.failed('pod', 'v1', 0)).toBe(300_000);
});

test('a failure no retry fixes is not tried again until the inputs change', () => {
  const backoff = new RestoreBackoff();
  backoff.refused('pod', 'v1');
  expect(backoff.waitMs('pod', 'v1', 0)).toBe(Infinity);
  expect(backoff.waitMs('pod', 'v1', 86_400_000)).toBe(Infinity);
  expect(backoff.waitMs('pod', 'v2', 0)).toBe(0);
});
