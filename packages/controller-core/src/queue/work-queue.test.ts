import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../metrics/create-metrics.ts';
import { LOW_PRIORITY, WorkQueue, type QueueItem } from './work-queue.ts';

const START = Date.UTC(2026, 0, 1);

beforeEach(() => {
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Settles pending promise callbacks, so a resolved `get()` has been seen by its awaiter. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** Starts a `get()` and records its result once it resolves, so a test can check whether it has. */
/** The queue's one delayed key becomes ready `ms` from now, and not a millisecond before (fake timers). */
function expectReadyIn(queue: WorkQueue, ms: number): void {
  vi.advanceTimersByTime(ms - 1);
  expect(queue.len()).toBe(0);
  vi.advanceTimersByTime(1);
  expect(queue.len()).toBe(1);
}

function pendingGet(queue: WorkQueue): { result: () => QueueItem | undefined | 'pending' } {
  let result: QueueItem | undefined | 'pending' = 'pending';
  void queue.get().then((item) => {
    result = item;
  });
  return { result: () => result };
}

describe('WorkQueue', () => {
  it('hands out keys in the order they were added', async () => {
    const queue = new WorkQueue({ name: 'test' });
    queue.add('ns/a');
    queue.add('ns/b');
    queue.add('c');
    expect((await queue.get())?.key).toBe('ns/a');
    expect((await queue.get())?.key).toBe('ns/b');
    expect((await queue.get())?.key).toBe('c');
  });

  it('queues a key once however often it is added, and keeps every reason', async () => {
    const queue = new WorkQueue({ name: 'test' });
    queue.add('ns/a', { event: 'Added', source: { kind: 'MaintPage', namespace: 'ns', name: 'a' } });
    vi.advanceTimersByTime(10);
    queue.add('ns/a', { event: 'Updated', source: { kind: 'Service', namespace: 'ns', name: 'web' } });
    queue.add('ns/b');
    expect(queue.len()).toBe(2);

    const item = await queue.get();
    expect(item).toEqual({
      key: 'ns/a',
      priority: 0,
      reasons: [
        { event: 'Added', source: { kind: 'MaintPage', namespace: 'ns', name: 'a' }, at: START },
        { event: 'Updated', source: { kind: 'Service', namespace: 'ns', name: 'web' }, at: START + 10 },
      ],
      droppedReasons: 0,
      queuedAt: START,
    });
    expect(queue.len()).toBe(1);
  });

  it('bounds the reasons a key collects while it waits', async () => {
    const queue = new WorkQueue({ name: 'test' });
    for (let i = 0; i < 12; i++) {
      queue.add('ns/a', { event: 'Updated', source: { kind: 'Pod', namespace: 'ns', name: `pod-${i}` } });
      vi.advanceTimersByTime(1);
    }
    const item = await queue.get();
    expect(item?.reasons).toHaveLength(8);
    expect(item?.reasons.at(-1)?.source?.name).toBe('pod-11');
    expect(item?.droppedReasons).toBe(4);
  });

  it('resolves a waiting get() when a key is added', async () => {
    const queue = new WorkQueue({ name: 'test' });
    const waiting = pendingGet(queue);
    await settle();
    expect(waiting.result()).toBe('pending');
    queue.add('a');
    await settle();
    expect(waiting.result()).toMatchObject({ key: 'a' });
  });

  it('runs a key added during processing again only after done(), with the new reasons', async () => {
    const queue = new WorkQueue({ name: 'test' });
    queue.add('ns/a', { event: 'Added' });
    const first = await queue.get();
    expect(first?.key).toBe('ns/a');

    queue.add('ns/a', { event: 'Updated' });
    expect(queue.len()).toBe(0); // held by a worker: not ready for another
    const second = pendingGet(queue);
    await settle();
    expect(second.result()).toBe('pending');

    queue.done('ns/a');
    await settle();
    expect(second.result()).toMatchObject({ key: 'ns/a', reasons: [{ event: 'Updated' }] });
  });

  it('never hands one key to two workers at once', async () => {
    const queue = new WorkQueue({ name: 'test' });
    const held = new Set<string>();
    const runs: string[] = [];
    let overlaps = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const item = await queue.get();
        if (item === undefined) return;
        if (held.has(item.key)) overlaps++;
        held.add(item.key);
        runs.push(item.key);
        // The key is added again while this worker holds it: it must wait for done().
        queue.add(item.key);
        await settle();
        held.delete(item.key);
        queue.done(item.key);
      }
    };
    const workers = [worker(), worker(), worker()];
    queue.add('a');
    queue.add('b');
    for (let round = 0; round < 20; round++) await settle();
    await queue.shutDownWithDrain();
    await Promise.all(workers);
    expect(overlaps).toBe(0);
    expect(runs.filter((key) => key === 'a').length).toBeGreaterThan(3);
    expect(runs.filter((key) => key === 'b').length).toBeGreaterThan(3);
  });

  it('ignores done() for a key no worker holds', async () => {
    const queue = new WorkQueue({ name: 'test' });
    queue.add('a');
    queue.done('a');
    expect(queue.len()).toBe(1);
    expect((await queue.get())?.key).toBe('a');
    queue.done('a');
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  describe('addAfter', () => {
    it('makes the key ready when the delay has passed, not before', () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.addAfter('a', 1000, { event: 'RequeueAfter' });
      expectReadyIn(queue, 1000);
    });

    it('lets a later call with an earlier deadline win, and runs the key once', async () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.addAfter('a', 10_000, { event: 'RequeueAfter' });
      queue.addAfter('a', 100, { event: 'Retry' });
      vi.advanceTimersByTime(100);
      const item = await queue.get();
      expect(item?.reasons.map((r) => r.event)).toEqual(['RequeueAfter', 'Retry']);
      queue.done('a');
      vi.advanceTimersByTime(20_000);
      expect(queue.len()).toBe(0);
    });

    it('keeps the earlier deadline when a later one comes', () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.addAfter('a', 100);
      queue.addAfter('a', 10_000);
      vi.advanceTimersByTime(100);
      expect(queue.len()).toBe(1);
    });

    it('is made ready at once by add(), leaving no timer behind', () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.addAfter('a', 10_000);
      queue.add('a');
      expect(queue.len()).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('does not delay a key that is already ready', () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.add('a');
      queue.addAfter('a', 10_000);
      expect(queue.len()).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('adds at once with a delay of zero or less', () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.addAfter('a', 0);
      queue.addAfter('b', -5);
      expect(queue.len()).toBe(2);
    });

    it('uses timers that do not keep the process alive', () => {
      vi.useRealTimers();
      const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
      const queue = new WorkQueue({ name: 'test' });
      queue.addAfter('a', 60_000);
      const timer = setTimeoutSpy.mock.results[0]?.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      queue.shutDown();
      setTimeoutSpy.mockRestore();
    });
  });

  describe('addRateLimited', () => {
    it('waits 5 ms, 10 ms, 20 ms … for successive failures, and starts over after forget', async () => {
      const queue = new WorkQueue({ name: 'test' });
      const readyAfter: number[] = [];
      for (let failure = 0; failure < 4; failure++) {
        const start = Date.now();
        queue.addRateLimited('a', { event: 'Retry' });
        while (queue.len() === 0) vi.advanceTimersByTime(1);
        readyAfter.push(Date.now() - start);
        await queue.get();
        queue.done('a');
      }
      expect(readyAfter).toEqual([5, 10, 20, 40]);
      expect(queue.numRequeues('a')).toBe(4);

      queue.forget('a');
      expect(queue.numRequeues('a')).toBe(0);
      queue.addRateLimited('a');
      expectReadyIn(queue, 5);
    });

    it('uses the backoff it is given', () => {
      const queue = new WorkQueue({ name: 'test', backoff: { when: () => 1000, retries: () => 0, forget: () => undefined } });
      queue.addRateLimited('a');
      expectReadyIn(queue, 1000);
    });
  });

  describe('shutdown', () => {
    it('resolves waiting and later get() calls with undefined, even with keys queued', async () => {
      const queue = new WorkQueue({ name: 'test' });
      const waiting = pendingGet(queue);
      await settle();
      queue.shutDown();
      await settle();
      expect(waiting.result()).toBeUndefined();

      queue.add('a');
      expect(queue.len()).toBe(0);
      expect(await queue.get()).toBeUndefined();
      expect(queue.isShuttingDown()).toBe(true);
    });

    it('drops queued keys and clears delay timers', async () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.add('a');
      queue.addAfter('b', 1000);
      queue.addRateLimited('c');
      expect(vi.getTimerCount()).toBe(2);
      queue.shutDown();
      expect(vi.getTimerCount()).toBe(0);
      expect(queue.len()).toBe(0);
      expect(await queue.get()).toBeUndefined();
    });

    it('shutDownWithDrain waits for keys in flight to be done', async () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.add('a');
      queue.add('b');
      await queue.get();
      await queue.get();
      let drained = false;
      void queue.shutDownWithDrain().then(() => {
        drained = true;
      });
      queue.done('a');
      await settle();
      expect(drained).toBe(false);
      queue.done('b');
      await settle();
      expect(drained).toBe(true);
    });

    it('shutDownWithDrain resolves at once when nothing is in flight', async () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.add('a');
      await expect(queue.shutDownWithDrain()).resolves.toBeUndefined();
    });
  });

  // controller-runtime's priority queue (pkg/controller/priorityqueue/priorityqueue.go): ready items are ordered by
  // priority, highest first, then by when they were added; re-adding at a higher priority moves an item to the end of
  // that priority's items, and an item keeps the highest priority it was added with.
  describe('priorities', () => {
    it('hands out higher priorities first, and keys of one priority in the order they became ready', async () => {
      const queue = new WorkQueue({ name: 'test' });
      for (const key of ['low-1', 'low-2', 'low-3']) queue.add(key, { event: 'Added' }, LOW_PRIORITY);
      queue.add('edited', { event: 'Updated' });
      queue.add('urgent', undefined, 10);
      queue.add('low-4', { event: 'Resync' }, LOW_PRIORITY);
      queue.add('edited-2', { event: 'Updated' });
      const order: [string, number][] = [];
      for (let item = queue.len() > 0 ? await queue.get() : undefined; item; item = queue.len() > 0 ? await queue.get() : undefined) {
        order.push([item.key, item.priority]);
      }
      expect(order).toEqual([['urgent', 10], ['edited', 0], ['edited-2', 0], ['low-1', LOW_PRIORITY], ['low-2', LOW_PRIORITY], ['low-3', LOW_PRIORITY], ['low-4', LOW_PRIORITY]]);
    });

    it('a key queued at low priority and then changed moves ahead of the backlog, to the end of the normal keys', async () => {
      const queue = new WorkQueue({ name: 'test' });
      for (let i = 0; i < 1000; i++) queue.add(`ns/object-${String(i)}`, { event: 'Added' }, LOW_PRIORITY);
      queue.add('ns/other-edit', { event: 'Updated' });
      queue.add('ns/object-999', { event: 'Updated' });
      expect(queue.len()).toBe(1001);
      const first = await queue.get();
      const second = await queue.get();
      const third = await queue.get();
      expect([first?.key, second?.key, third?.key]).toEqual(['ns/other-edit', 'ns/object-999', 'ns/object-0']);
      expect(second?.priority).toBe(0);
      expect(second?.reasons.map((reason) => reason.event)).toEqual(['Added', 'Updated']);
      expect(third?.priority).toBe(LOW_PRIORITY);
    });

    it('a lower priority never lowers a queued key, nor moves it', async () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.add('a');
      queue.add('b');
      queue.add('a', { event: 'Resync' }, LOW_PRIORITY);
      expect((await queue.get())).toMatchObject({ key: 'a', priority: 0 });
      expect((await queue.get())).toMatchObject({ key: 'b', priority: 0 });
    });

    it('a delayed key keeps its priority when it becomes ready, and takes the higher one when added again', async () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.addAfter('later-low', 1000, { event: 'RequeueAfter' }, LOW_PRIORITY);
      queue.addAfter('later-raised', 1000, { event: 'RequeueAfter' }, LOW_PRIORITY);
      queue.addAfter('later-raised', 5000, { event: 'RequeueAfter' });
      queue.add('now-low', undefined, LOW_PRIORITY);
      vi.advanceTimersByTime(1000);
      expect(queue.snapshot().queued.map(({ key, priority }) => [key, priority])).toEqual([['later-raised', 0], ['now-low', LOW_PRIORITY], ['later-low', LOW_PRIORITY]]);
      expect((await queue.get())?.key).toBe('later-raised');
      expect((await queue.get())?.key).toBe('now-low');
      expect((await queue.get())?.key).toBe('later-low');
    });

    it('a key added while a worker holds it runs again at the highest priority it was added with', async () => {
      const queue = new WorkQueue({ name: 'test' });
      queue.add('busy', undefined, LOW_PRIORITY);
      const held = await queue.get();
      queue.add('busy', { event: 'Resync' }, LOW_PRIORITY);
      queue.add('busy', { event: 'Updated' });
      queue.add('other', undefined, LOW_PRIORITY);
      queue.done(held?.key ?? '');
      expect(await queue.get()).toMatchObject({ key: 'busy', priority: 0 });
    });

    it('reports the depth of each priority', async () => {
      const metrics = createMetrics(new Registry());
      const queue = new WorkQueue({ name: 'maintpage', metrics });
      queue.add('a', undefined, LOW_PRIORITY);
      queue.add('b', undefined, LOW_PRIORITY);
      queue.add('c');
      const text = await metrics.registry.metrics();
      expect(text).toContain('workqueue_depth{name="maintpage",controller="maintpage",priority="0"} 1');
      expect(text).toContain('workqueue_depth{name="maintpage",controller="maintpage",priority="-100"} 2');
      await queue.shutDownWithDrain();
    });
  });

  it('snapshots queued, delayed and in-flight keys with their reasons and ages', async () => {
    const queue = new WorkQueue({ name: 'maintpage' });
    queue.add('ns/running', { event: 'Added' });
    await queue.get();
    queue.add('ns/running', { event: 'Updated' });
    queue.add('ns/waiting', { event: 'Resync' });
    queue.addAfter('ns/later', 60_000, { event: 'RequeueAfter' });
    vi.advanceTimersByTime(1500);

    expect(queue.snapshot()).toEqual({
      name: 'maintpage',
      shuttingDown: false,
      queued: [
        {
          key: 'ns/running',
          priority: 0,
          reasons: [{ event: 'Updated', at: START }],
          droppedReasons: 0,
          queuedForMs: 1500,
          afterCurrentRun: true,
          retries: 0,
        },
        {
          key: 'ns/waiting',
          priority: 0,
          reasons: [{ event: 'Resync', at: START }],
          droppedReasons: 0,
          queuedForMs: 1500,
          afterCurrentRun: false,
          retries: 0,
        },
      ],
      delayed: [
        { key: 'ns/later', priority: 0, reasons: [{ event: 'RequeueAfter', at: START }], droppedReasons: 0, readyInMs: 58_500, retries: 0 },
      ],
      processing: [
        { key: 'ns/running', priority: 0, reasons: [{ event: 'Added', at: START }], droppedReasons: 0, runningForMs: 1500, retries: 0 },
      ],
    });
  });

  it('reports controller-runtime workqueue metrics', async () => {
    const metrics = createMetrics(new Registry());
    const queue = new WorkQueue({ name: 'maintpage', metrics });
    /** The value of one sample (`…_bucket`, `…_sum` and `…_count` for histograms) whose labels include `labels`. */
    const value = async (sample: string, labels: Record<string, string> = {}): Promise<number | undefined> => {
      const family = sample.replace(/_(bucket|sum|count)$/, '');
      const metric = await (metrics.registry.getSingleMetric(sample) ?? metrics.registry.getSingleMetric(family))?.get();
      return metric?.values.find(
        (v) =>
          ('metricName' in v ? String(v.metricName) : sample) === sample &&
          Object.entries(labels).every(([label, expected]) => String(v.labels[label]) === expected),
      )?.value;
    };

    queue.add('ns/a');
    queue.add('ns/a'); // dedupe: not an add
    queue.add('ns/b');
    expect(await value('workqueue_adds_total', { name: 'maintpage', controller: 'maintpage' })).toBe(2);
    expect(await value('workqueue_depth', { name: 'maintpage', controller: 'maintpage', priority: '0' })).toBe(2);

    vi.advanceTimersByTime(2000);
    await queue.get(); // ns/a waited 2 s
    vi.advanceTimersByTime(3000);
    expect(await value('workqueue_depth')).toBe(1);
    expect(await value('workqueue_unfinished_work_seconds')).toBe(3);
    expect(await value('workqueue_longest_running_processor_seconds')).toBe(3);
    queue.done('ns/a'); // worked 3 s
    expect(await value('workqueue_unfinished_work_seconds')).toBe(0);

    queue.addAfter('ns/c', 1000);
    queue.addRateLimited('ns/d');
    expect(await value('workqueue_retries_total')).toBe(2);
    expect(await value('workqueue_depth')).toBe(1); // delayed keys are not in the queue yet
    vi.advanceTimersByTime(1000);
    expect(await value('workqueue_adds_total')).toBe(4);
    expect(await value('workqueue_depth')).toBe(3);

    expect(await value('workqueue_queue_duration_seconds_count')).toBe(1);
    expect(await value('workqueue_queue_duration_seconds_sum')).toBe(2);
    expect(await value('workqueue_work_duration_seconds_count')).toBe(1);
    expect(await value('workqueue_work_duration_seconds_sum')).toBe(3);
    expect(await value('workqueue_work_duration_seconds_bucket', { le: '10' })).toBe(1);
    expect(await value('workqueue_work_duration_seconds_bucket', { le: '1' })).toBe(0);

    await queue.shutDownWithDrain();
    expect(await value('workqueue_depth')).toBeUndefined(); // a stopped queue stops reporting
  });
});
