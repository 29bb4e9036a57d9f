// The signal of the work a request is made for. A reconcile runs in the scope of its own signal, so every API request
// it makes ends when the reconcile is aborted (lost leadership, a stop, its timeout), whether or not the call passes the
// signal itself. Without this, one call that forgot it could hold a reconcile for the transport's 90 s timeout (an API
// server waiting on a lost etcd holds requests that long), and a lost leadership would end the process after the
// 5 s the controller waits for its reconciles.
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` (and everything it starts) in the scope of `signal`. */
export function withRequestSignal<T>(signal: AbortSignal, work: () => T): T {
  return scope.run(signal, work);
}

/**
 * Runs `work` outside any request scope: for work that outlives the reconcile that happened to start it (a queue
 * that writes on behalf of every reconcile), which must not end with that one reconcile.
 */
export function outsideRequestScope<T>(work: () => T): T {
  return scope.exit(work);
}

/** The signal a request made now carries: its own, the scope's, or one aborted by either. */
export function requestSignal(own: AbortSignal | undefined): AbortSignal | undefined {
  const scoped = scope.getStore();
  if (scoped === undefined || scoped === own) return own;
  return own === undefined ? scoped : AbortSignal.any([own, scoped]);
}
