import { expect, it } from 'vitest';
import { RequeueTiming } from './requeue-timing.ts';

it('keeps the work queue’s back-off while polling or checking for drift, and resets it only once in sync', () => {
  const timing = new RequeueTiming({ taskPollMs: 1_000, driftCheckMs: 60_000, addressPollMs: 5_000 });
  expect(timing.poll()).toEqual({ requeueAfterMs: 1_000, forget: false });
  const drift = timing.driftCheck();
  expect(drift.forget).toBe(false);
  expect(drift.requeueAfterMs).toBeGreaterThanOrEqual(54_000);
  expect(drift.requeueAfterMs).toBeLessThanOrEqual(66_000);

  expect(timing.inSync(true)).toEqual({ requeueAfterMs: 5_000 });
  const inSync = timing.inSync(false);
  expect(inSync.forget).toBeUndefined();
  expect(inSync.requeueAfterMs).toBeGreaterThanOrEqual(54_000);
});
