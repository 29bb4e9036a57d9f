import { ApiError, Controller, createLogger, createMetrics, type ReconcileResult } from '@k8s-operators/controller-core';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REQUEUE_BACKOFFS, RequeueTiming } from './requeue-timing.ts';

const timing = new RequeueTiming({ taskPollMs: 1_000, driftCheckMs: 60_000, addressPollMs: 5_000 });

it('keeps the AhvVm’s back-offs while polling or checking for drift, and resets them only once in sync', () => {
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

it('waits what Prism or the access gate asked for, keeping the count; the Prism back-off when they asked for nothing', () => {
  expect(timing.waitOrPrismRetry(120_000)).toEqual({ requeueAfterMs: 120_000, forget: false });
  expect(timing.waitOrPrismRetry(undefined)).toEqual({ requeue: true, backoff: 'prism' });
  // A Retry-After of 0 backs off rather than dropping the requeue (requeueAfterMs: 0 would be a success).
  expect(timing.waitOrPrismRetry(0)).toEqual({ requeue: true, backoff: 'prism' });
});

describe('the AhvVm controller’s back-offs, in the work queue', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /**
   * A controller with the AhvVm controller's back-offs on fake timers, whose reconciler returns, per key, the next of
   * `script[key]`. `step(ms)` lets that much time pass and says when each key is due next.
   */
  function controllerReturning(script: Record<string, (ReconcileResult | 'conflict')[]>) {
    const controller = new Controller({
      name: 'ahvvm',
      metrics: createMetrics(new Registry()),
      logger: createLogger({ level: 'silent' }),
      requeueBackoffs: REQUEUE_BACKOFFS,
      reconciler: ({ request }) => {
        const next = script[request.key]?.shift();
        if (next === 'conflict') {
          return Promise.reject(new ApiError({ status: 409, body: { kind: 'Status', reason: 'Conflict' }, request: 'PATCH ahvvms/status' }));
        }
        return Promise.resolve(next);
      },
    });
    const step = async (ms: number): Promise<Record<string, number>> => {
      await vi.advanceTimersByTimeAsync(ms);
      return Object.fromEntries(controller.queue.snapshot().delayed.map((d) => [d.key, d.readyInMs]));
    };
    return { controller, step };
  }

  it('retries Prism failures after 1 s doubling to 5 minutes per AhvVm, conflicts after 5 ms, and starts over once in sync', async () => {
    vi.useFakeTimers();
    // The middle of the ±10 % spread: delays exactly as doubled.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const prism = timing.prismRetry();
    const r = controllerReturning({
      'ns/a': [prism, 'conflict', timing.poll(), prism, ...Array.from({ length: 9 }, () => prism), timing.inSync(true), prism],
      'ns/b': [prism],
    });
    r.controller.start();
    r.controller.enqueue('ns/a', { event: 'Added' });
    r.controller.enqueue('ns/b', { event: 'Added' });

    expect(await r.step(0)).toEqual({ 'ns/a': 1_000, 'ns/b': 1_000 });
    // A conflict of the status write: the queue's 5 ms, not the Prism back-off's 2 s.
    expect(await r.step(1_000)).toEqual({ 'ns/a': 5 });
    // A task poll between two failures keeps the count: the next Prism failure waits 2 s, and so on up to 5 minutes.
    expect(await r.step(5)).toEqual({ 'ns/a': 1_000 });
    const waits: number[] = [];
    let due = 1_000;
    for (let i = 0; i < 10; i++) {
      due = (await r.step(due))['ns/a'] ?? 0;
      waits.push(due);
    }
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000]);
    // In sync: the next failure starts over at 1 s, spread by ±10 %.
    expect(await r.step(300_000)).toEqual({ 'ns/a': 5_000 });
    random.mockReturnValue(0);
    expect(await r.step(5_000)).toEqual({ 'ns/a': 900 });
    await r.controller.stop(1_000);
  });
});
