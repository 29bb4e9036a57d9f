import { getEventListeners } from 'node:events';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../metrics/create-metrics.ts';
import { Controller, ReconcilesStillRunning, type ControllerOptions } from './controller.ts';
import type { ReconcileResult, Reconciler } from './reconciler.ts';

describe('Controller', () => {
  it('leaves no listener on a finished reconcile’s signal, which would keep every reconcile in memory', async () => {
    const signals: AbortSignal[] = [];
    const controller = new Controller({
      name: 'signals',
      metrics: createMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
      reconciler: ({ signal }) => {
        signals.push(signal);
        return Promise.resolve(undefined);
      },
    });
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    controller.enqueue('ns/b', { event: 'Added' });
    await vi.waitFor(() => {
      expect(signals).toHaveLength(2);
    });
    // Waits for reconciles in flight to finish.
    await controller.stop(5_000);

    for (const signal of signals) expect(getEventListeners(signal, 'abort')).toEqual([]);
  });
});

/** A promise the test resolves when it chooses: how a reconciler is kept running. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => { open = resolve; });
  return { promise, open };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A reconciler whose first call ignores its signal and runs until `first.open()`; later calls return at once. It records
 * when each call starts and ends, and the most calls ever running for one key at the same time.
 */
function firstCallIgnoresItsSignal() {
  const first = gate();
  const signals: AbortSignal[] = [];
  const events: string[] = [];
  const running = new Map<string, number>();
  let mostAtOnce = 0;
  const reconciler: Reconciler = async ({ request, signal }) => {
    const call = signals.push(signal);
    const now = (running.get(request.key) ?? 0) + 1;
    running.set(request.key, now);
    mostAtOnce = Math.max(mostAtOnce, now);
    events.push(`start ${request.key} #${String(call)}`);
    if (call === 1) await first.promise;
    running.set(request.key, now - 1);
    events.push(`end ${request.key} #${String(call)}`);
    return undefined;
  };
  return { reconciler, first, signals, events, mostAtOnce: () => mostAtOnce };
}

function controllerWith(reconciler: Reconciler, options: Partial<Omit<ControllerOptions, 'name' | 'reconciler' | 'metrics'>> = {}) {
  const registry = new Registry();
  const controller = new Controller({ name: 'test', metrics: createMetrics(registry), logger: options.logger ?? pino({ level: 'silent' }), reconciler, ...options });
  const count = async (metric: string, labels: Record<string, string> = {}): Promise<number> => {
    const values = (await registry.getSingleMetric(metric)?.get())?.values ?? [];
    return values.filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value)).reduce((sum, v) => sum + v.value, 0);
  };
  return { controller, count };
}

describe('Controller: a key whose reconcile was aborted stays held until the reconcile returns', () => {
  it('does not reconcile a timed-out key again while the reconcile that ignores its signal still runs', async () => {
    const r = firstCallIgnoresItsSignal();
    const { controller, count } = controllerWith(r.reconciler, { maxConcurrentReconciles: 2, reconcileTimeoutMs: 20 });
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    await vi.waitFor(() => { expect(r.signals[0]?.aborted).toBe(true); });
    controller.enqueue('ns/a', { event: 'Updated' });
    // Time for a free worker to take the key (the timeout's retry is due after 5 ms) if the queue let it go.
    await sleep(100);
    expect(r.events).toEqual(['start ns/a #1']);
    expect(controller.queue.snapshot().processing.map((p) => p.key)).toEqual(['ns/a']);

    r.first.open();
    await vi.waitFor(() => { expect(r.events).toHaveLength(4); });
    await controller.stop(1_000);

    expect(r.events).toEqual(['start ns/a #1', 'end ns/a #1', 'start ns/a #2', 'end ns/a #2']);
    expect(r.mostAtOnce()).toBe(1);
    // The timed-out reconcile still counts as a timeout and an error, whatever it did once it returned.
    expect(await count('controller_runtime_reconcile_timeouts_total')).toBe(1);
    expect(await count('controller_runtime_reconcile_errors_total')).toBe(1);
    expect(await count('controller_runtime_reconcile_total', { result: 'error' })).toBe(1);
    expect(await count('controller_runtime_reconcile_total', { result: 'success' })).toBe(1);
  });

  it('stop() aborts the signal after its grace period, yet holds the key and resolves only once the reconcile returned', async () => {
    const r = firstCallIgnoresItsSignal();
    const { controller } = controllerWith(r.reconciler);
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    await vi.waitFor(() => { expect(r.signals).toHaveLength(1); });

    let stopped = false;
    const stopping = controller.stop(20).then(() => { stopped = true; });
    await vi.waitFor(() => { expect(r.signals[0]?.aborted).toBe(true); });
    await sleep(50);
    expect(stopped).toBe(false);
    expect(controller.queue.snapshot().processing.map((p) => p.key)).toEqual(['ns/a']);

    r.first.open();
    await stopping;
    expect(r.events).toEqual(['start ns/a #1', 'end ns/a #1']);
    expect(controller.queue.snapshot().processing).toEqual([]);
  });

  it('stop() is bounded: it rejects, naming the key, once a reconcile ignores its signal 5 s past the grace period; the key stays held', async () => {
    vi.useFakeTimers();
    const r = firstCallIgnoresItsSignal();
    try {
      const { controller } = controllerWith(r.reconciler);
      controller.start();
      controller.enqueue('ns/a', { event: 'Added' });
      await vi.advanceTimersByTimeAsync(0);
      expect(r.signals).toHaveLength(1);

      let outcome: unknown;
      const stopping = controller.stop(1_000).then(() => 'resolved', (error: unknown) => error);
      void stopping.then((value) => { outcome = value; });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(r.signals[0]?.aborted).toBe(true);
      await vi.advanceTimersByTimeAsync(4_999);
      expect(outcome).toBeUndefined();

      await vi.advanceTimersByTimeAsync(1);
      expect(outcome).toBeInstanceOf(ReconcilesStillRunning);
      expect((outcome as ReconcilesStillRunning).keys).toEqual(['ns/a']);
      expect((outcome as Error).message).toMatch(/controller test: stopped waiting for the reconciles of ns\/a, still running 5 s after their signal was aborted.*ignores its signal/);
      // Never handed to another worker in this process, however long the reconcile still runs.
      controller.enqueue('ns/a', { event: 'Updated' });
      await vi.advanceTimersByTimeAsync(60_000);
      expect(controller.queue.snapshot().processing.map((p) => p.key)).toEqual(['ns/a']);
      expect(r.events).toEqual(['start ns/a #1']);
    } finally {
      r.first.open();
      vi.useRealTimers();
    }
  });

  it('abort() aborts the signal at once, yet holds the key until the reconcile returned, and stop() waits for it', async () => {
    const r = firstCallIgnoresItsSignal();
    const { controller } = controllerWith(r.reconciler);
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    await vi.waitFor(() => { expect(r.signals).toHaveLength(1); });

    controller.abort();
    expect(r.signals[0]?.aborted).toBe(true);
    let stopped = false;
    const stopping = controller.stop(1_000).then(() => { stopped = true; });
    await sleep(50);
    expect(stopped).toBe(false);
    expect(controller.queue.snapshot().processing.map((p) => p.key)).toEqual(['ns/a']);

    r.first.open();
    await stopping;
    expect(r.events).toEqual(['start ns/a #1', 'end ns/a #1']);
  });

  it('logs an error for whoever is on call when a reconcile keeps running 5 s after its signal was aborted, and when it returns', async () => {
    vi.useFakeTimers();
    try {
      const lines: { level: number; msg: string; name?: string; abortReason?: string }[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as (typeof lines)[number]); } });
      const r = firstCallIgnoresItsSignal();
      const { controller } = controllerWith(r.reconciler, { reconcileTimeoutMs: 1_000, logger });
      controller.start();
      controller.enqueue('ns/a', { event: 'Added' });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(r.signals[0]?.aborted).toBe(true);
      await vi.advanceTimersByTimeAsync(4_999);
      expect(lines).toEqual([]);

      await vi.advanceTimersByTimeAsync(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 50, name: 'a', abortReason: 'reconcile timed out after 1000 ms' });
      expect(lines[0]?.msg).toMatch(/still running after its signal was aborted.*not reconciled again.*stop gives up waiting/);

      r.first.open();
      await vi.advanceTimersByTimeAsync(0);
      expect(lines.map((l) => l.msg)).toEqual([
        lines[0]?.msg,
        'reconcile failed; retrying with back-off',
        expect.stringMatching(/ignored its aborted signal has returned/),
      ]);
      const stopping = controller.stop(1_000);
      await vi.advanceTimersByTimeAsync(100);
      await stopping;
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Controller: back-off the reconciler asks for', () => {
  /**
   * Runs a controller whose reconciler returns `list` in turn (then `undefined`) on key ns/a until it has been called
   * `calls` times, noting the key's failure count and the time at each call.
   */
  async function run(list: (ReconcileResult | 'throw')[], calls: number, options: Partial<ControllerOptions> = {}) {
    const retriesSeen: number[] = [];
    const startedAt: number[] = [];
    const { controller, count } = controllerWith(({ request }) => {
      retriesSeen.push(controller.queue.numRequeues(request.key));
      startedAt.push(performance.now());
      const next = list.shift();
      return next === 'throw' ? Promise.reject(new Error('failed')) : Promise.resolve(next);
    }, options);
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    await vi.waitFor(() => { expect(retriesSeen).toHaveLength(calls); });
    await controller.stop(1_000);
    return { controller, count, retriesSeen, startedAt };
  }

  it('requeue: true waits out the key’s back-off, counting a failure but no error', async () => {
    const r = await run([{ requeue: true }, { requeue: true }, { requeue: true }], 4, { backoff: { baseDelayMs: 20, maxDelayMs: 1_000 } });

    expect(r.retriesSeen).toEqual([0, 1, 2, 3]);
    const gaps = r.startedAt.slice(1).map((t, i) => t - (r.startedAt[i] ?? 0));
    // 20, 40 and 80 ms; timers may fire a millisecond early.
    gaps.forEach((gap, i) => { expect(gap).toBeGreaterThanOrEqual(20 * 2 ** i - 2); });
    expect(await r.count('controller_runtime_reconcile_total', { result: 'requeue' })).toBe(3);
    expect(await r.count('controller_runtime_reconcile_total', { result: 'success' })).toBe(1);
    expect(await r.count('controller_runtime_reconcile_errors_total')).toBe(0);
    // The last reconcile succeeded: the key's failures are forgotten.
    expect(r.controller.queue.numRequeues('ns/a')).toBe(0);
  });

  it('forget: false keeps the key’s failures across a requeueAfterMs, which otherwise resets them', async () => {
    const results: (ReconcileResult | 'throw')[] = [{ requeue: true }, { requeueAfterMs: 5, forget: false }, 'throw', { requeueAfterMs: 5 }, { requeue: true }, { forget: false }];
    const r = await run(results, 6, { backoff: { baseDelayMs: 5, maxDelayMs: 1_000 } });

    expect(r.retriesSeen).toEqual([0, 1, 1, 2, 0, 1]);
    // forget: false on a plain success keeps the count too.
    expect(r.controller.queue.numRequeues('ns/a')).toBe(1);
    expect(await r.count('controller_runtime_reconcile_errors_total')).toBe(1);
    expect(await r.count('controller_runtime_reconcile_total', { result: 'requeue_after' })).toBe(2);
  });

  it('requeueAfterMs wins over requeue, as controller-runtime’s RequeueAfter over Requeue', async () => {
    const r = await run([{ requeue: true, requeueAfterMs: 5 }], 2);

    expect(r.retriesSeen).toEqual([0, 0]);
    expect(await r.count('controller_runtime_reconcile_total', { result: 'requeue_after' })).toBe(1);
  });

  it('retries an error after the back-off it was given', async () => {
    const { controller } = controllerWith(() => Promise.reject(new Error('failed')), { backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    controller.start();
    controller.enqueue('ns/a', { event: 'Added' });
    await vi.waitFor(() => { expect(controller.queue.snapshot().delayed).toHaveLength(1); });
    const [retry] = controller.queue.snapshot().delayed;
    expect(retry?.readyInMs).toBeGreaterThan(59_000);
    expect(retry?.retries).toBe(1);
    await controller.stop(1_000);
  });
});
