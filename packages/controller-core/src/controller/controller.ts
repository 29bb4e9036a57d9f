import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { isConflict } from '../client/errors.ts';
import { withRequestSignal } from '../client/request-scope.ts';
import { reconcileLogger } from '../log.ts';
import type { ControllerCoreMetrics, ReconcileResult as ResultLabel } from '../metrics/create-metrics.ts';
import { parseObjectKey } from '../objects/object-key.ts';
import { ItemExponentialBackoff, type ItemExponentialBackoffOptions } from '../queue/item-backoff.ts';
import type { QueueReasonInput } from '../queue/queue-reasons.ts';
import type { QueueItem } from '../queue/work-queue.ts';
import { WorkQueue } from '../queue/work-queue.ts';
import { isProgrammingError, TerminalError, type Reconciler } from './reconciler.ts';

export interface ControllerOptions {
  /** Unique per manager: the `controller` label of every metric and log line. */
  name: string;
  reconciler: Reconciler;
  metrics: ControllerCoreMetrics;
  logger: Logger;
  /** Keys reconciled at once; one key is never reconciled twice at once (default 1, as controller-runtime). */
  maxConcurrentReconciles?: number;
  /** Abort a reconcile that runs longer than this (default: none, as controller-runtime). */
  reconcileTimeoutMs?: number;
  /**
   * The work queue's per-key back-off after an error or `{ requeue: true }` (default 5 ms doubling to 1000 s, no
   * jitter: controller-runtime's). A controller whose reconciles call a slow or rate-limited API starts higher.
   */
  backoff?: ItemExponentialBackoffOptions;
  /**
   * Back-offs a reconciler names in `{ requeue: true, backoff: name }`, each counting per key apart from the work
   * queue's (default none). For a dependency slower than the API server: its failures wait seconds to minutes while a
   * thrown conflict of the same key still waits the queue's milliseconds.
   */
  requeueBackoffs?: Readonly<Record<string, ItemExponentialBackoffOptions>>;
}

class ReconcileTimeout extends Error {}

/** Attaches a source of keys to the controller; returns what detaches it. */
export type StartSource = () => () => void;

interface ControllerRun {
  stop: AbortController;
  workers: Promise<void>;
  detachSources: (() => void)[];
}

/**
 * How long a reconcile may take to return once its signal is aborted before it is judged to ignore
 * the signal: the log says so, and a stop gives up waiting for it.
 */
const IGNORED_ABORT_AFTER_MS = 5_000;

/** Why a stop gave up waiting: reconciles that ignore their aborted signal, by key. */
export class ReconcilesStillRunning extends Error {
  override readonly name = 'ReconcilesStillRunning';
  readonly keys: readonly string[];

  constructor(controller: string, keys: readonly string[], graceMs: number) {
    super(
      `controller ${controller}: stopped waiting for the reconciles of ${keys.join(', ')}, still running ` +
        `${String(IGNORED_ABORT_AFTER_MS / 1000)} s after their signal was aborted (the grace period of ${String(graceMs)} ms had passed): ` +
        'the reconciler ignores its signal. The process must exit; make the reconciler pass its signal to what it waits for',
    );
    this.keys = keys;
  }
}

/**
 * The reconcile loop of one controller: workers take keys from a deduplicating work queue and run the reconciler;
 * the outcome decides what happens to the key (controller-runtime's reconcileHandler): success forgets its back-offs,
 * `requeueAfterMs` forgets them and schedules the key (neither forgets with `forget: false`), `requeue` and a thrown
 * error retry with per-item exponential back-off (only the error counts as one; `requeue` with a named `backoff` counts
 * in that back-off instead of the queue's), a TerminalError is not retried.
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #options: ControllerOptions;
  readonly #requeueBackoffs: ReadonlyMap<string, ItemExponentialBackoff>;
  /** The current leadership's work: its workers, the signal its reconciles get, and how to detach its sources. */
  #run: ControllerRun | undefined;
  #active = 0;
  readonly #sources: StartSource[] = [];

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#options = options;
    this.queue = new WorkQueue({ name: options.name, metrics: options.metrics, backoff: new ItemExponentialBackoff(options.backoff) });
    this.#requeueBackoffs = new Map(
      Object.entries(options.requeueBackoffs ?? {}).map(([name, backoff]) => [name, new ItemExponentialBackoff(backoff)]),
    );
  }

  get maxConcurrentReconciles(): number {
    return this.#options.maxConcurrentReconciles ?? 1;
  }

  /**
   * Adds a source of keys (an informer's event handler, say), started with the controller and not before: as
   * controller-runtime's Controller.Start watches its sources, so a replica that is not the leader queues nothing
   * (its workqueue_depth stays 0) and a new leader is handed every object its warm caches hold. `startSource` returns
   * what detaches it: a controller stopped when leadership is lost detaches its sources, and attaches them again (and
   * is handed every object again) when it leads once more.
   */
  watch(startSource: StartSource): void {
    this.#sources.push(startSource);
    this.#run?.detachSources.push(startSource());
  }

  /**
   * Queues a key with the reason it was queued, at `priority` (0 by default; the initial list and resyncs use
   * LOW_PRIORITY); duplicates merge while the key waits, keeping the higher priority.
   */
  enqueue(key: string, reason: QueueReasonInput, priority = 0): void {
    this.queue.add(key, reason, priority);
  }

  /** Starts the workers and the sources; again after {@link stopNow}, with an empty queue that the sources refill. */
  start(): void {
    if (this.#run) return;
    this.queue.reopen();
    this.#options.metrics.initController(this.name, { maxConcurrentReconciles: this.maxConcurrentReconciles });
    const stop = new AbortController();
    const workers = Array.from({ length: this.maxConcurrentReconciles }, () => this.#work(stop.signal));
    this.#run = { stop, workers: Promise.all(workers).then(() => undefined), detachSources: [] };
    for (const startSource of this.#sources) this.#run.detachSources.push(startSource());
  }

  /**
   * Stops taking work and waits up to `timeoutMs` for reconciles in flight; after that they are aborted through their
   * signal, and the stop waits {@link IGNORED_ABORT_AFTER_MS} more for them to return, as controller-runtime waits for
   * Reconcile to return: until then a reconcile may still write to the cluster. A reconcile still running after that
   * ignores its signal and may never return: the stop then rejects with a {@link ReconcilesStillRunning} naming its keys,
   * so that a stop is bounded and the process can exit. Those keys stay held: no worker of this controller takes them
   * again, and a manager that sees the rejection does not release its lease, so no other replica reconciles them before
   * this process is gone and the lease has expired.
   */
  async stop(timeoutMs: number): Promise<void> {
    const run = this.#run;
    if (!run) return;
    this.#detach(run);
    if (await settlesWithin(run.workers, timeoutMs)) {
      this.#run = undefined;
      return;
    }
    run.stop.abort(new Error('controller stopped'));
    await this.#awaitAborted(run, timeoutMs);
  }

  /**
   * Leadership lost: another replica may already be acting, so in-flight reconciles are aborted at once, not allowed
   * to finish, and no new one starts. Resolves once every one has returned, so that the controller may {@link start}
   * again under a later leadership; rejects with {@link ReconcilesStillRunning} if some still run
   * {@link IGNORED_ABORT_AFTER_MS} after the abort (their keys stay held, and the process must exit).
   */
  async stopNow(): Promise<void> {
    const run = this.#run;
    if (!run) return;
    this.#detach(run);
    run.stop.abort(new Error('leader election lost'));
    await this.#awaitAborted(run, 0);
  }

  /** Takes no more work: the sources stop queueing and the queue drops what waits. Keys in flight stay held. */
  #detach(run: ControllerRun): void {
    for (const detach of run.detachSources.splice(0)) detach();
    this.queue.shutDown();
  }

  async #awaitAborted(run: ControllerRun, graceMs: number): Promise<void> {
    if (!(await settlesWithin(run.workers, IGNORED_ABORT_AFTER_MS))) {
      throw new ReconcilesStillRunning(this.name, this.queue.snapshot().processing.map((p) => p.key), graceMs);
    }
    this.#run = undefined;
  }

  async #work(stop: AbortSignal): Promise<void> {
    for (;;) {
      const item = await this.queue.get();
      if (!item) return;
      try {
        await this.#reconcile(item, stop);
      } finally {
        this.queue.done(item.key);
      }
    }
  }

  async #reconcile(item: QueueItem, stop: AbortSignal): Promise<void> {
    const { metrics } = this.#options;
    const controller = this.name;
    const reconcileID = randomUUID();
    const parsed = parseObjectKey(item.key);
    const request = { key: item.key, name: parsed.name, ...(parsed.namespace ? { namespace: parsed.namespace } : {}) };
    const log = reconcileLogger(this.#options.logger, { controller, name: parsed.name, reconcileID, reasons: item.reasons, ...(parsed.namespace ? { namespace: parsed.namespace } : {}) });
    const timeoutMs = this.#options.reconcileTimeoutMs;
    const timeout = new AbortController();
    const timer = timeoutMs ? setTimeout(() => { timeout.abort(new ReconcileTimeout(`reconcile timed out after ${timeoutMs} ms`)); }, timeoutMs) : undefined;
    const signal = AbortSignal.any([stop, timeout.signal]);
    this.#active++;
    metrics.activeWorkers.set({ controller }, this.#active);
    const started = performance.now();
    log.debug({ droppedReasons: item.droppedReasons }, 'reconcile started');
    let label: ResultLabel;
    const returned = reportIgnoredAbort(signal, log);
    try {
      // The key is done only once the reconciler has returned, aborted or not: until then it may still act on the object,
      // and a second reconcile of the same key must not run beside it. An aborted reconcile fails with the abort's reason
      // (a timeout is counted and retried), whatever the reconciler made of it.
      // In the scope of its signal, every API request the reconciler makes ends with it (client/request-scope.ts).
      const result = await withRequestSignal(signal, () => this.#options.reconciler({ request, reasons: item.reasons, log, signal, reconcileID }))
        .finally(() => { signal.throwIfAborted(); });
      if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        if (result.forget !== false) this.#forget(item.key);
        this.queue.addAfter(item.key, result.requeueAfterMs, { event: 'RequeueAfter' }, item.priority);
        label = 'requeue_after';
      } else if (result?.requeue === true) {
        const retries = this.#requeueWithBackoff(item, result.backoff);
        log.debug({ retries, backoff: result.backoff }, 'requeued with back-off');
        label = 'requeue';
      } else {
        if (result?.forget !== false) this.#forget(item.key);
        label = 'success';
      }
    } catch (error) {
      label = 'error';
      metrics.reconcileErrors.inc({ controller });
      if (error instanceof TerminalError) {
        metrics.terminalReconcileErrors.inc({ controller });
        log.error({ err: error }, 'reconcile failed with a terminal error; not retrying until the object changes');
      } else {
        if (error instanceof ReconcileTimeout) metrics.reconcileTimeouts.inc({ controller });
        if (isProgrammingError(error)) metrics.reconcilePanics.inc({ controller });
        if (!stop.aborted) {
          this.queue.addRateLimited(item.key, { event: 'Retry' }, item.priority);
          const retries = this.queue.numRequeues(item.key);
          // Someone changed the object between our read and our write: routine, not something to page anyone about.
          if (isConflict(error)) log.info({ retries, reason: (error as Error).message }, 'conflict: the object changed meanwhile; retrying with the latest version');
          else log.error({ err: error, retries }, 'reconcile failed; retrying with back-off');
        }
      }
    } finally {
      clearTimeout(timer);
      returned();
      this.#active--;
      metrics.activeWorkers.set({ controller }, this.#active);
    }
    const seconds = (performance.now() - started) / 1000;
    metrics.reconcileTotal.inc({ controller, result: label });
    metrics.reconcileTime.observe({ controller }, seconds);
    log.debug({ result: label, seconds }, 'reconcile finished');
  }

  /**
   * Queues the item's key again, at the priority it ran at (as controller-runtime requeues), after the delay of the
   * back-off named `name` (the work queue's without one); returns its failures so far.
   */
  #requeueWithBackoff({ key, priority }: QueueItem, name: string | undefined): number {
    if (name === undefined) {
      this.queue.addRateLimited(key, { event: 'Requeue' }, priority);
      return this.queue.numRequeues(key);
    }
    const backoff = this.#requeueBackoffs.get(name);
    if (backoff === undefined) {
      throw new RangeError(`controller ${this.name}: no back-off named ${JSON.stringify(name)}; declare it in withOptions({ requeueBackoffs })`);
    }
    this.queue.addAfter(key, backoff.when(key), { event: 'Requeue' }, priority);
    return backoff.retries(key);
  }

  /** Resets every failure count of `key`: the work queue's and each named back-off's. */
  #forget(key: string): void {
    this.queue.forget(key);
    for (const backoff of this.#requeueBackoffs.values()) backoff.forget(key);
  }
}

/** Whether `promise` settled within `ms`; its rejection is the caller's to handle. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<false>((resolve) => { timer = setTimeout(() => { resolve(false); }, ms); });
  try {
    return await Promise.race([promise.then(() => true), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Logs when a reconcile is still running {@link IGNORED_ABORT_AFTER_MS} after its signal was aborted, and when it
 * finally returns: meanwhile its key cannot run again and its worker takes no other key, which would otherwise go unsaid.
 * Returns what to call once the reconcile has returned.
 */
function reportIgnoredAbort(signal: AbortSignal, log: Logger): () => void {
  let abortedAt = 0;
  let reported = false;
  let timer: NodeJS.Timeout | undefined;
  const abortReason = (): string => (signal.reason as Error).message;
  const onAbort = (): void => {
    abortedAt = performance.now();
    timer = setTimeout(() => {
      reported = true;
      log.error(
        { abortReason: abortReason(), secondsSinceAbort: IGNORED_ABORT_AFTER_MS / 1000 },
        'reconcile still running after its signal was aborted: the reconciler ignores its signal. Until it returns, this object is not reconciled again and its worker takes no other object, and a stop gives up waiting for it (the process then exits); if it never returns, restart the pod, and make the reconciler pass its signal to what it waits for',
      );
    }, IGNORED_ABORT_AFTER_MS);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return () => {
    // Node keeps a signal from AbortSignal.any() alive while it has listeners and its sources live: a listener left
    // behind would keep this reconcile's signals, closures and promises for the controller's whole life.
    signal.removeEventListener('abort', onAbort);
    clearTimeout(timer);
    if (reported) {
      const secondsSinceAbort = (performance.now() - abortedAt) / 1000;
      log.warn({ abortReason: abortReason(), secondsSinceAbort }, 'the reconcile that ignored its aborted signal has returned; this object can be reconciled again');
    }
  };
}
