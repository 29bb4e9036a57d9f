import type { Logger } from 'pino';
import type { QueueReason } from '../queue/queue-reasons.ts';

/** Which object to reconcile: controllers work on keys, never on event payloads (level-triggered). */
export interface ReconcileRequest {
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  key: string;
  namespace?: string;
  name: string;
}

export interface ReconcileContext {
  request: ReconcileRequest;
  /** Why this reconcile runs: the events (and their sources) merged while the key waited in the queue. */
  reasons: readonly QueueReason[];
  /** A logger bound to controller, object, reconcileID and reasons. */
  log: Logger;
  /** Aborted when the reconcile times out or the manager shuts down; pass it to long operations. */
  signal: AbortSignal;
  reconcileID: string;
}

/**
 * What happens to the key after a reconcile that did not throw. Without a result (or with `{}`), nothing until the
 * next event, and the key's failure count is reset, as controller-runtime's `Forget` after a success.
 */
export interface ReconcileResult {
  /**
   * Reconcile again after this long, e.g. to follow a task or a schedule boundary. Counted as `requeue_after`. Wins
   * over `requeue` (as controller-runtime's `RequeueAfter` wins over `Requeue`).
   */
  requeueAfterMs?: number;
  /**
   * Reconcile again after this key's back-off delay (`ControllerSettings.backoff`, or the one named by `backoff`),
   * counting one more failure for the key as a thrown error would, but without being an error: counted as `requeue`,
   * not in `controller_runtime_reconcile_errors_total`, and not logged as a failure. controller-runtime's
   * `Requeue: true`. For a failure the reconciler has handled and reported itself (say, in a condition), such as an
   * external API that is down. `forget` is ignored: this always counts, and resets no count.
   */
  requeue?: boolean;
  /**
   * With `requeue: true`, which of the controller's `requeueBackoffs` to wait out instead of the work queue's own:
   * its delays, and a count of this key's failures of its own, apart from the count of thrown errors. For a dependency
   * that must be retried after seconds while API-server conflicts are retried after milliseconds. A name the
   * controller does not declare fails the reconcile with a RangeError.
   */
  backoff?: string;
  /**
   * Whether the key's failure counts are reset: the work queue's and every named back-off's. Default true, as
   * controller-runtime does after any reconcile that did not fail. `false` keeps them, so that the next `requeue` (or
   * error) waits longer than the last: for a reconcile that only checks on work in progress (a task it started, say)
   * between failures and has not yet seen it succeed.
   */
  forget?: boolean;
}

/**
 * One reconcile of one key. Throwing reports a failure that is retried with per-item exponential back-off (as does
 * returning `{ requeue: true }`, which is not counted as an error); throwing a
 * {@link TerminalError} reports one that retrying cannot fix (bad input): it is counted and logged, not retried, until
 * the next change of the object queues it again.
 */
export type Reconciler = (context: ReconcileContext) => Promise<ReconcileResult | undefined>;

/** A failure that retrying will not fix, as controller-runtime's `reconcile.TerminalError`. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

/**
 * Exceptions that mean the reconciler itself is broken (the JavaScript kin of a Go panic), counted in
 * `controller_runtime_reconcile_panics_total` as well as as errors; they are retried like any error.
 */
export function isProgrammingError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof ReferenceError || error instanceof RangeError || error instanceof SyntaxError;
}
