import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { isConflict } from '../client/errors.ts';
import { reconcileLogger } from '../log.ts';
import type { ControllerCoreMetrics, ReconcileResult as ResultLabel } from '../metrics/create-metrics.ts';
import { parseObjectKey } from '../objects/object-key.ts';
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
}

class ReconcileTimeout extends Error {}

/**
 * The reconcile loop of one controller: workers take keys from a deduplicating work queue and run the reconciler;
 * the outcome decides what happens to the key (controller-runtime's reconcileHandler): success forgets its back-off,
 * `requeueAfterMs` forgets it and schedules the key, a thrown error retries with per-item exponential back-off, a
 * TerminalError is not retried.
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #options: ControllerOptions;
  readonly #stop = new AbortController();
  #workers: Promise<void>[] = [];
  #active = 0;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#options = options;
    this.queue = new WorkQueue({ name: options.name, metrics: options.metrics });
  }

  get maxConcurrentReconciles(): number {
    return this.#options.maxConcurrentReconciles ?? 1;
  }

  /** Queues a key with the reason it was queued; duplicates merge while the key waits. */
  enqueue(key: string, reason: QueueReasonInput): void {
    this.queue.add(key, reason);
  }

  start(): void {
    if (this.#workers.length > 0) return;
    this.#options.metrics.initController(this.name, { maxConcurrentReconciles: this.maxConcurrentReconciles });
    this.#workers = Array.from({ length: this.maxConcurrentReconciles }, () => this.#work());
  }

  /**
   * Stops taking work and waits up to `timeoutMs` for reconciles in flight; after that they are aborted through their
   * signal. Resolves when every worker has returned.
   */
  async stop(timeoutMs: number): Promise<void> {
    const drained = this.queue.shutDownWithDrain();
    const timer = setTimeout(() => { this.#stop.abort(new Error('controller stopped')); }, timeoutMs);
    try {
      await Promise.race([drained, new Promise((r) => setTimeout(r, timeoutMs + 1_000).unref())]);
      await Promise.all(this.#workers);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Aborts in-flight reconciles at once (leadership lost: another replica may already be acting). */
  abort(): void {
    this.#stop.abort(new Error('leader election lost'));
    this.queue.shutDown();
  }

  async #work(): Promise<void> {
    for (;;) {
      const item = await this.queue.get();
      if (!item) return;
      try {
        await this.#reconcile(item);
      } finally {
        this.queue.done(item.key);
      }
    }
  }

  async #reconcile(item: QueueItem): Promise<void> {
    const { metrics } = this.#options;
    const controller = this.name;
    const reconcileID = randomUUID();
    const parsed = parseObjectKey(item.key);
    const request = { key: item.key, name: parsed.name, ...(parsed.namespace ? { namespace: parsed.namespace } : {}) };
    const log = reconcileLogger(this.#options.logger, { controller, name: parsed.name, reconcileID, reasons: item.reasons, ...(parsed.namespace ? { namespace: parsed.namespace } : {}) });
    const timeoutMs = this.#options.reconcileTimeoutMs;
    const timeout = new AbortController();
    const timer = timeoutMs ? setTimeout(() => { timeout.abort(new ReconcileTimeout(`reconcile timed out after ${timeoutMs} ms`)); }, timeoutMs) : undefined;
    const signal = AbortSignal.any([this.#stop.signal, timeout.signal]);
    this.#active++;
    metrics.activeWorkers.set({ controller }, this.#active);
    const started = performance.now();
    log.debug({ droppedReasons: item.droppedReasons }, 'reconcile started');
    let label: ResultLabel;
    let stopListening = (): void => undefined;
    try {
      const aborted = new Promise<never>((_, reject) => {
        const onAbort = (): void => { reject(signal.reason as Error); };
        signal.addEventListener('abort', onAbort, { once: true });
        // Node keeps a signal from AbortSignal.any() alive while it has listeners and its sources live: a listener left
        // behind would keep this reconcile's signals, closures and promises for the controller's whole life.
        stopListening = () => { signal.removeEventListener('abort', onAbort); };
      });
      aborted.catch(() => undefined);
      const result = await Promise.race([this.#options.reconciler({ request, reasons: item.reasons, log, signal, reconcileID }), aborted]);
      if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        this.queue.forget(item.key);
        this.queue.addAfter(item.key, result.requeueAfterMs, { event: 'RequeueAfter' });
        label = 'requeue_after';
      } else {
        this.queue.forget(item.key);
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
        if (!this.#stop.signal.aborted) {
          this.queue.addRateLimited(item.key, { event: 'Retry' });
          const retries = this.queue.numRequeues(item.key);
          // Someone changed the object between our read and our write: routine, not something to page anyone about.
          if (isConflict(error)) log.info({ retries, reason: (error as Error).message }, 'conflict: the object changed meanwhile; retrying with the latest version');
          else log.error({ err: error, retries }, 'reconcile failed; retrying with back-off');
        }
      }
    } finally {
      clearTimeout(timer);
      stopListening();
      this.#active--;
      metrics.activeWorkers.set({ controller }, this.#active);
    }
    const seconds = (performance.now() - started) / 1000;
    metrics.reconcileTotal.inc({ controller, result: label });
    metrics.reconcileTime.observe({ controller }, seconds);
    log.debug({ result: label, seconds }, 'reconcile finished');
  }
}
