import type { WorkQueueMetrics, WorkQueueMetricsProvider } from '../metrics/workqueue-metrics.ts';
import { ItemExponentialBackoff, type ItemBackoff } from './item-backoff.ts';
import { QueueReasons, type QueueReason, type QueueReasonInput } from './queue-reasons.ts';

/**
 * A deduplicating work queue of object keys (`namespace/name` or `name`) with client-go's guarantees:
 *
 * - a key is queued at most once, however often it is added before a worker takes it;
 * - a key is never handed to two workers at once: added again while a worker holds it, it runs again only after
 *   that worker calls `done(key)`;
 * - keys are handed out by priority, highest first (controller-runtime's priority queue, its default since v0.23), and
 *   within one priority in the order they became ready. Events from an informer's initial list and from resyncs are
 *   queued at {@link LOW_PRIORITY}, so after a restart with thousands of objects a user's edit runs before the backlog.
 *   A key queued again at a higher priority moves to the end of that priority's keys; at the same or a lower one it
 *   keeps its place and priority (controller-runtime takes the maximum of the priorities it was added with).
 *
 * Delayed adds follow controller-runtime's priority queue (its default since v0.23) rather than client-go's separate
 * delaying queue: a key has at most one pending entry, whose deadline only ever moves earlier. An immediate `add`
 * makes a delayed key ready now; a later `addAfter` for a key that is already ready, or due sooner, changes nothing but
 * its reasons. Reconciles are level-based, so the run that happens covers what the dropped deadline asked for; the
 * reconciler asks again if it still needs a later run.
 *
 * Unlike controller-runtime, each pending key carries the reasons it was queued for (see {@link QueueReason}).
 */

/**
 * The priority controller-runtime gives events from the initial list and from resyncs (`handler.LowPriority`); keys
 * queued without one have priority 0.
 */
export const LOW_PRIORITY = -100;

export interface QueueItem {
  key: string;
  /** The priority it was handed out at: the controller requeues it (RequeueAfter, retries) at the same one. */
  priority: number;
  /** Why the key was queued since it was last handed out, oldest first; at most `MAX_REASONS_PER_KEY`. */
  reasons: QueueReason[];
  /** Distinct reasons that did not fit and were dropped, oldest first. */
  droppedReasons: number;
  /** When the key became ready to run, epoch ms. */
  queuedAt: number;
}

export interface WorkQueueOptions {
  /**
   * The queue's name, and its `name` and `controller` metric labels: use the controller's name, as controller-runtime
   * does. Required.
   */
  name: string;
  /** Delay policy of `addRateLimited`. Default: `new ItemExponentialBackoff()`, 5 ms doubling up to 1000 s. */
  backoff?: ItemBackoff;
  /** Where the `workqueue_*` metrics go, typically `createMetrics()`'s result. Default: no metrics. */
  metrics?: WorkQueueMetricsProvider;
}

/** What `/debug/queue` shows: the queue's state at one moment. Ages are in ms. */
export interface WorkQueueSnapshot {
  name: string;
  shuttingDown: boolean;
  /**
   * Keys ready to run, in the order workers get them (highest priority first, then oldest). `afterCurrentRun` keys
   * wait for a worker that holds the same key to finish.
   */
  queued: {
    key: string;
    priority: number;
    reasons: QueueReason[];
    droppedReasons: number;
    queuedForMs: number;
    afterCurrentRun: boolean;
    retries: number;
  }[];
  /** Keys scheduled for later (RequeueAfter, retries), soonest first. */
  delayed: { key: string; priority: number; reasons: QueueReason[]; droppedReasons: number; readyInMs: number; retries: number }[];
  /** Keys workers hold now, with the reasons they were handed out for. */
  processing: { key: string; priority: number; reasons: QueueReason[]; droppedReasons: number; runningForMs: number; retries: number }[];
}

/** A key waiting to run: ready (`readyAt` undefined) or scheduled for `readyAt`. */
interface Pending {
  reasons: QueueReasons;
  /** The highest priority it was queued with since it was last handed out. */
  priority: number;
  /** When it became ready, epoch ms; for a delayed key, when it was scheduled. */
  since: number;
  delay?: { readyAt: number; timer: NodeJS.Timeout };
}

interface InFlight {
  item: QueueItem;
  startedAt: number;
}

export class WorkQueue {
  readonly name: string;
  readonly #backoff: ItemBackoff;
  readonly #metricsProvider: WorkQueueMetricsProvider | undefined;
  #metrics: WorkQueueMetrics | undefined;
  /** Every key waiting to run, ready or delayed (client-go's `dirty` set, plus the delayed keys). */
  readonly #pending = new Map<string, Pending>();
  /**
   * Ready keys no worker holds (client-go's `queue`), by priority. Each Set gives FIFO order and O(1) removal; the
   * priorities in use are few (0 and LOW_PRIORITY from the informers, whatever a reconciler asks for).
   */
  readonly #ready = new Map<number, Set<string>>();
  /** The keys of #ready, highest first. */
  #priorities: number[] = [];
  #readyCount = 0;
  /** Keys workers hold (client-go's `processing`). */
  readonly #processing = new Map<string, InFlight>();
  /** Workers waiting in `get()`, first come first served. */
  readonly #waitingWorkers: ((item: QueueItem | undefined) => void)[] = [];
  readonly #drained: (() => void)[] = [];
  #shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    if (options.name === '') throw new Error('WorkQueue: name must not be empty; use the controller name');
    this.name = options.name;
    this.#backoff = options.backoff ?? new ItemExponentialBackoff();
    this.#metricsProvider = options.metrics;
    this.#metrics = this.#reportMetrics();
  }

  /** Reports this queue's metrics, until the queue is shut down and idle (again after each `reopen()`). */
  #reportMetrics(): WorkQueueMetrics | undefined {
    return this.#metricsProvider?.workQueue(this.name, () => {
      const now = Date.now();
      const depth = new Map<number, number>();
      for (const pending of this.#pending.values()) {
        if (pending.delay === undefined) depth.set(pending.priority, (depth.get(pending.priority) ?? 0) + 1);
      }
      return {
        depth,
        processingSeconds: [...this.#processing.values()].map((inFlight) => (now - inFlight.startedAt) / 1000),
      };
    });
  }

  /** Queues `key` to run as soon as a worker is free, after the keys of higher priority. No-op once shut down. */
  add(key: string, reason?: QueueReasonInput, priority = 0): void {
    if (this.#shuttingDown) return;
    this.#makeReady(key, QueueReasons.of(reason, Date.now()), priority);
  }

  /**
   * Queues `key` to run after `delayMs`; with `delayMs <= 0`, now. If the key is already pending, the earlier deadline
   * wins and the reasons merge. The timer does not keep the process alive and is cleared by `shutDown()`.
   */
  addAfter(key: string, delayMs: number, reason?: QueueReasonInput, priority = 0): void {
    if (this.#shuttingDown) return;
    const now = Date.now();
    const reasons = QueueReasons.of(reason, now);
    if (!(delayMs > 0)) {
      this.#makeReady(key, reasons, priority);
      return;
    }
    this.#metrics?.retried();
    const readyAt = now + delayMs;
    const pending = this.#pending.get(key);
    if (pending === undefined) {
      this.#pending.set(key, { reasons, priority, since: now, delay: this.#schedule(key, readyAt) });
      return;
    }
    pending.reasons.merge(reasons);
    this.#raise(key, pending, priority);
    if (pending.delay !== undefined && readyAt < pending.delay.readyAt) {
      clearTimeout(pending.delay.timer);
      pending.delay = this.#schedule(key, readyAt);
    }
  }

  /**
   * Queues `key` after its backoff delay (5 ms, 10 ms, 20 ms … 1000 s by default) and counts one more failure for it;
   * `forget(key)` resets the count after a success.
   */
  addRateLimited(key: string, reason?: QueueReasonInput, priority = 0): void {
    if (this.#shuttingDown) return;
    this.addAfter(key, this.#backoff.when(key), reason, priority);
  }

  /** Resets `key`'s backoff. Does not remove it from the queue. */
  forget(key: string): void {
    this.#backoff.forget(key);
  }

  /** How many times `key` was rate-limited since it was last forgotten. */
  numRequeues(key: string): number {
    return this.#backoff.retries(key);
  }

  /**
   * Waits for a ready key and hands it to the caller, who must call `done(key)` when finished with it. Resolves
   * `undefined` once the queue is shut down: like controller-runtime's priority queue, and unlike client-go's legacy
   * queue, a stopping queue starts no new work even if keys are still queued.
   */
  get(): Promise<QueueItem | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const item = this.#takeNext();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => this.#waitingWorkers.push(resolve));
  }

  /** Marks `key` finished. If it was added meanwhile, it becomes ready again. A key no worker holds is ignored. */
  done(key: string): void {
    const inFlight = this.#processing.get(key);
    if (inFlight === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.finished((Date.now() - inFlight.startedAt) / 1000);
    const pending = this.#pending.get(key);
    if (pending !== undefined && pending.delay === undefined) {
      this.#enqueueReady(key, pending.priority);
      this.#handOut();
    }
    if (this.#processing.size === 0 && this.#shuttingDown) this.#finishDrain();
  }

  /**
   * Stops the queue: drops pending keys and timers, makes waiting and future `get()` calls resolve `undefined`, and
   * ignores further adds. Workers holding keys may finish and call `done()`.
   */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const pending of this.#pending.values()) if (pending.delay !== undefined) clearTimeout(pending.delay.timer);
    this.#pending.clear();
    this.#ready.clear();
    this.#priorities = [];
    this.#readyCount = 0;
    for (const worker of this.#waitingWorkers.splice(0)) worker(undefined);
    if (this.#processing.size === 0) this.#finishDrain();
  }

  /** `shutDown()`, then waits until every key handed out has been `done()`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /**
   * Takes adds and hands out keys again after a shut-down whose keys have all been `done()`: a controller that lost
   * leadership starts again with this queue, empty, when it leads once more. Back-off counts are kept (a key that
   * kept failing still waits). No-op while the queue runs.
   */
  reopen(): void {
    if (!this.#shuttingDown) return;
    if (this.#processing.size > 0) {
      throw new Error(`WorkQueue ${this.name}: cannot reopen while ${String(this.#processing.size)} keys are still being processed`);
    }
    this.#shuttingDown = false;
    this.#metrics = this.#reportMetrics();
  }

  isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Keys ready to hand out now: not delayed, not waiting for a worker that holds the same key. */
  len(): number {
    return this.#readyCount;
  }

  snapshot(): WorkQueueSnapshot {
    const now = Date.now();
    const snapshot: WorkQueueSnapshot = {
      name: this.name,
      shuttingDown: this.#shuttingDown,
      queued: [],
      delayed: [],
      processing: [],
    };
    for (const [key, pending] of this.#pending) {
      const common = {
        key,
        priority: pending.priority,
        reasons: [...pending.reasons.list],
        droppedReasons: pending.reasons.dropped,
        retries: this.#backoff.retries(key),
      };
      if (pending.delay === undefined) {
        snapshot.queued.push({ ...common, queuedForMs: now - pending.since, afterCurrentRun: this.#processing.has(key) });
      } else {
        snapshot.delayed.push({ ...common, readyInMs: Math.max(0, pending.delay.readyAt - now) });
      }
    }
    snapshot.queued.sort((a, b) => b.priority - a.priority || b.queuedForMs - a.queuedForMs);
    snapshot.delayed.sort((a, b) => a.readyInMs - b.readyInMs);
    for (const [key, { item, startedAt }] of this.#processing) {
      snapshot.processing.push({
        key,
        priority: item.priority,
        reasons: [...item.reasons],
        droppedReasons: item.droppedReasons,
        runningForMs: now - startedAt,
        retries: this.#backoff.retries(key),
      });
    }
    return snapshot;
  }

  #makeReady(key: string, reasons: QueueReasons, priority: number): void {
    const now = Date.now();
    let pending = this.#pending.get(key);
    if (pending !== undefined) {
      pending.reasons.merge(reasons);
      if (pending.delay === undefined) { // already ready: dedupe, raising its priority if asked
        this.#raise(key, pending, priority);
        return;
      }
      clearTimeout(pending.delay.timer);
      delete pending.delay;
      pending.since = now;
      pending.priority = Math.max(pending.priority, priority);
    } else {
      pending = { reasons, priority, since: now };
      this.#pending.set(key, pending);
    }
    this.#metrics?.added();
    if (this.#processing.has(key)) return; // runs again after done()
    this.#enqueueReady(key, pending.priority);
    this.#handOut();
  }

  /** Raises a pending key to `priority` if that is higher; a ready key moves to the end of its new priority's keys. */
  #raise(key: string, pending: Pending, priority: number): void {
    if (priority <= pending.priority) return;
    const readyAt = this.#ready.get(pending.priority);
    const wasReady = readyAt?.delete(key) === true;
    pending.priority = priority;
    if (wasReady) {
      this.#readyCount--;
      this.#enqueueReady(key, priority);
    }
  }

  #enqueueReady(key: string, priority: number): void {
    let keys = this.#ready.get(priority);
    if (keys === undefined) {
      keys = new Set();
      this.#ready.set(priority, keys);
      this.#priorities = [...this.#ready.keys()].sort((a, b) => b - a);
    }
    keys.add(key);
    this.#readyCount++;
  }

  #schedule(key: string, readyAt: number): { readyAt: number; timer: NodeJS.Timeout } {
    const timer = setTimeout(() => {
      const pending = this.#pending.get(key);
      if (pending?.delay?.timer !== timer) return;
      this.#makeReady(key, new QueueReasons(), pending.priority);
    }, readyAt - Date.now());
    // A controller's pending requeues must not keep a process alive that is otherwise done.
    timer.unref();
    return { readyAt, timer };
  }

  #handOut(): void {
    while (this.#waitingWorkers.length > 0) {
      const item = this.#takeNext();
      if (item === undefined) return;
      this.#waitingWorkers.shift()?.(item);
    }
  }

  /** Moves the next ready key (highest priority, then oldest) to processing and returns it; undefined when none is ready. */
  #takeNext(): QueueItem | undefined {
    let keys: Set<string> | undefined;
    for (const priority of this.#priorities) {
      keys = this.#ready.get(priority);
      if (keys !== undefined && keys.size > 0) break;
    }
    const [key] = keys ?? [];
    const pending = key === undefined ? undefined : this.#pending.get(key);
    if (keys === undefined || key === undefined || pending === undefined) return undefined;
    keys.delete(key);
    this.#readyCount--;
    this.#pending.delete(key);
    const now = Date.now();
    const queuedAt = pending.since;
    const item: QueueItem = { key, priority: pending.priority, reasons: [...pending.reasons.list], droppedReasons: pending.reasons.dropped, queuedAt };
    this.#processing.set(key, { item, startedAt: now });
    this.#metrics?.started((now - queuedAt) / 1000);
    return item;
  }

  #finishDrain(): void {
    this.#metrics?.close();
    for (const resolve of this.#drained.splice(0)) resolve();
  }
}
