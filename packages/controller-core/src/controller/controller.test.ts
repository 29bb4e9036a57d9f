import { getEventListeners } from 'node:events';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/** A started controller whose worker is reconciling `ns/a` with a call that ignores its signal until `r.first.open()`. */
async function reconcilingKeyThatIgnoresItsSignal() {
  const r = firstCallIgnoresItsSignal();
  const { controller } = controllerWith(r.reconciler);
  controller.start();
  controller.enqueue('ns/a', { event: 'Added' });
  await vi.waitFor(() => { expect(r.signals).toHaveLength(1); });
  return { r, controller };
}

/**
 * `stopping` (a stop of that controller) is still pending 50 ms on, with `ns/a` still held, and resolves once the
 * reconcile that ignores its signal returns.
 */
async function expectStopWaitsForTheReconcile(stopping: Promise<void>, r: ReturnType<typeof firstCallIgnoresItsSignal>, controller: Controller): Promise<void> {
  let stopped = false;
  void stopping.then(() => { stopped = true; });
  await sleep(50);
  expect(stopped).toBe(false);
  expect(controller.queue.snapshot().processing.map((p) => p.key)).toEqual(['ns/a']);

  r.first.open();
  await stopping;
  expect(r.events).toEqual(['start ns/a #1', 'end ns/a #1']);
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
    const { r, controller } = await reconcilingKeyThatIgnoresItsSignal();

    const stopping = controller.stop(20);
    await vi.waitFor(() => { expect(r.signals[0]?.aborted).toBe(true); });
    await expectStopWaitsForTheReconcile(stopping, r, controller);
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

  it('stopNow() (leadership lost) aborts the signal at once and resolves only once the reconcile has returned', async () => {
    const { r, controller } = await reconcilingKeyThatIgnoresItsSignal();

    const stopping = controller.stopNow();
    expect(r.signals[0]?.aborted).toBe(true);
    expect((r.signals[0]?.reason as Error).message).toBe('leader election lost');
    await expectStopWaitsForTheReconcile(stopping, r, controller);
  });

  it('stopNow() rejects, naming the key, when a reconcile still ignores its abort 5 s later: the process must exit', async () => {
    vi.useFakeTimers();
    try {
      const r = firstCallIgnoresItsSignal();
      const { controller } = controllerWith(r.reconciler);
      controller.start();
      controller.enqueue('ns/a', { event: 'Added' });
      await vi.advanceTimersByTimeAsync(1);
      let outcome: unknown;
      controller.stopNow().catch((error: unknown) => { outcome = error; });
      await vi.advanceTimersByTimeAsync(5_000);
      expect(outcome).toBeInstanceOf(ReconcilesStillRunning);
      expect((outcome as ReconcilesStillRunning).keys).toEqual(['ns/a']);
    } finally {
      vi.useRealTimers();
    }
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

describe('Controller: started again after stopNow(), as a replica that leads once more', () => {
  /** A source that hands the controller every "cached" key when attached, as an informer's handler is, and can be told of changes. */
  function cacheSource(keys: string[]) {
    let attached = 0;
    let handler: ((key: string) => void) | undefined;
    return {
      start: (controller: Controller) => () => {
        attached++;
        handler = (key) => { controller.enqueue(key, { event: 'Updated' }); };
        for (const key of keys) controller.enqueue(key, { event: 'Added' });
        return () => { handler = undefined; };
      },
      change: (key: string) => { handler?.(key); },
      attached: () => attached,
    };
  }

  it('queues nothing between leaderships, then is handed every cached object again and reconciles it', async () => {
    const reconciled: string[] = [];
    const { controller, count } = controllerWith(({ request }) => { reconciled.push(request.key); return Promise.resolve(undefined); });
    const source = cacheSource(['ns/a', 'ns/b']);
    controller.watch(source.start(controller));
    controller.start();
    await vi.waitFor(() => { expect(reconciled.toSorted()).toEqual(['ns/a', 'ns/b']); });

    await controller.stopNow();
    source.change('ns/a');
    controller.enqueue('ns/c', { event: 'Added' });
    expect(controller.queue.snapshot()).toMatchObject({ queued: [], delayed: [], processing: [] });
    expect(await count('workqueue_depth')).toBe(0);

    reconciled.length = 0;
    controller.start();
    expect(source.attached()).toBe(2);
    await vi.waitFor(() => { expect(reconciled.toSorted()).toEqual(['ns/a', 'ns/b']); });
    source.change('ns/b');
    await vi.waitFor(() => { expect(reconciled).toHaveLength(3); });
    await controller.stop(1_000);
  });

  it('a key that failed before the loss is retried again after it (back-off counts are kept, not the delays)', async () => {
    let failures = 0;
    const { controller } = controllerWith(() => (failures++ < 3 ? Promise.reject(new Error('API server away')) : Promise.resolve(undefined)));
    const source = cacheSource(['ns/a']);
    controller.watch(source.start(controller));
    controller.start();
    await vi.waitFor(() => { expect(failures).toBeGreaterThanOrEqual(2); });
    await controller.stopNow();
    const before = failures;
    controller.start();
    await vi.waitFor(() => { expect(failures).toBeGreaterThan(before); });
    await vi.waitFor(() => { expect(controller.queue.snapshot().delayed).toEqual([]); });
    await controller.stop(1_000);
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

describe('Controller: named requeue back-offs', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  /**
   * A controller whose reconciler returns, per key, the next of `script[key]` (then `undefined`). `step(ms)` lets that
   * much (fake) time pass and says when each key is due next, in ms; a key not due is not there.
   */
  function scripted(script: Record<string, (ReconcileResult | 'throw')[]>, options: Partial<ControllerOptions>) {
    const { controller, count } = controllerWith(({ request }) => {
      const next = script[request.key]?.shift();
      return next === 'throw' ? Promise.reject(new Error('failed')) : Promise.resolve(next);
    }, options);
    const step = async (ms: number): Promise<Record<string, number>> => {
      await vi.advanceTimersByTimeAsync(ms);
      return Object.fromEntries(controller.queue.snapshot().delayed.map((d) => [d.key, d.readyInMs]));
    };
    return { controller, count, step };
  }

  const slowAndSpread: Partial<ControllerOptions> = {
    requeueBackoffs: {
      slow: { baseDelayMs: 1_000, maxDelayMs: 5_000, jitter: 0.1, random: () => 0.5 },
      spread: { baseDelayMs: 1_000, maxDelayMs: 5_000, jitter: 0.1, random: () => 0 },
    },
  };

  it('waits out its own delays, counted per key and per name, while a thrown error keeps the queue’s 5 ms', async () => {
    const slow: ReconcileResult = { requeue: true, backoff: 'slow' };
    const r = scripted({
      'ns/a': [slow, 'throw', slow, { requeueAfterMs: 50, forget: false }, slow, slow, { requeue: true, backoff: 'spread' }],
      'ns/b': [slow],
    }, slowAndSpread);
    r.controller.start();
    r.controller.enqueue('ns/a', { event: 'Added' });
    r.controller.enqueue('ns/b', { event: 'Added' });

    // Each key's first: the base delay of its own count.
    expect(await r.step(0)).toEqual({ 'ns/a': 1_000, 'ns/b': 1_000 });
    // The conflict-like error retries after the queue's 5 ms, not after 2 s: its count is not the named one's...
    expect(await r.step(1_000)).toEqual({ 'ns/a': 5 });
    expect(r.controller.queue.numRequeues('ns/a')).toBe(1);
    // ...and the named count goes on from where it was: 2 s, then across a poll that keeps it, 4 s and the 5 s cap.
    expect(await r.step(5)).toEqual({ 'ns/a': 2_000 });
    expect(await r.step(2_000)).toEqual({ 'ns/a': 50 });
    expect(await r.step(50)).toEqual({ 'ns/a': 4_000 });
    expect(await r.step(4_000)).toEqual({ 'ns/a': 5_000 });
    // Another name counts on its own, and its jitter spreads the delay by up to ±10 %.
    expect(await r.step(5_000)).toEqual({ 'ns/a': 900 });
    expect(await r.count('controller_runtime_reconcile_total', { result: 'requeue' })).toBe(6);
    expect(await r.count('controller_runtime_reconcile_errors_total')).toBe(1);
    await r.controller.stop(1_000);
  });

  it('starts over after a reconcile that forgets, and not after one with forget: false', async () => {
    const slow: ReconcileResult = { requeue: true, backoff: 'slow' };
    const r = scripted({ 'ns/a': [slow, slow, { forget: false }, slow, {}, slow, { requeueAfterMs: 10 }, slow] }, slowAndSpread);
    r.controller.start();
    r.controller.enqueue('ns/a', { event: 'Added' });
    expect(await r.step(0)).toEqual({ 'ns/a': 1_000 });
    expect(await r.step(1_000)).toEqual({ 'ns/a': 2_000 });
    // forget: false on a plain success keeps the count: the next failure waits 4 s.
    expect(await r.step(2_000)).toEqual({});
    r.controller.enqueue('ns/a', { event: 'Updated' });
    expect(await r.step(0)).toEqual({ 'ns/a': 4_000 });
    // A success forgets it: 1 s again.
    expect(await r.step(4_000)).toEqual({});
    r.controller.enqueue('ns/a', { event: 'Updated' });
    expect(await r.step(0)).toEqual({ 'ns/a': 1_000 });
    // So does a requeueAfterMs without forget: false.
    expect(await r.step(1_000)).toEqual({ 'ns/a': 10 });
    expect(await r.step(10)).toEqual({ 'ns/a': 1_000 });
    await r.controller.stop(1_000);
  });

  it('fails a reconcile that names a back-off the controller does not declare, as a bug', async () => {
    const r = scripted({ 'ns/a': [{ requeue: true, backoff: 'slwo' }] }, slowAndSpread);
    r.controller.start();
    r.controller.enqueue('ns/a', { event: 'Added' });
    expect(await r.step(0)).toEqual({ 'ns/a': 5 });
    expect(await r.count('controller_runtime_reconcile_errors_total')).toBe(1);
    expect(await r.count('controller_runtime_reconcile_panics_total')).toBe(1);
    await r.controller.stop(1_000);
  });
});
