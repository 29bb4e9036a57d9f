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

export interface ReconcileResult {
  /** Reconcile again after this long (resets the error back-off), e.g. to follow a task or a schedule boundary. */
  requeueAfterMs?: number;
}

/**
 * One reconcile of one key. Throwing reports a failure that is retried with per-item exponential back-off; throwing a
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
