import { ItemExponentialBackoff } from '@k8s-operators/controller-core';

export interface RetryBackoffOptions {
  /** The first delay. Default 1 s. */
  baseMs?: number;
  /** The longest delay. Default 5 minutes. */
  maxMs?: number;
  /** Spreads delays by ±10 % (0 ≤ r < 1). Default Math.random. */
  random?: () => number;
}

/**
 * Per-resource delays before retrying after Prism failed a request or a task: doubling from 1 s to 5 minutes, reset
 * once the resource is in sync. The doubling is the work queue's own (`ItemExponentialBackoff`), but the controller
 * cannot use its queue for it: `ControllerSettings` does not take a back-off, and the queue's 5 ms start suits
 * API-server conflicts but would send a Prism request that keeps failing ten times in the first second. The queue
 * also forgets a key's failures whenever a reconcile returns `requeueAfterMs`, and a Prism failure is not a reconcile
 * error, so the count is kept here, across the task polls in between, until the resource is in sync.
 */
export class RetryBackoff {
  readonly #doubling: ItemExponentialBackoff;
  readonly #random: () => number;

  constructor(options: RetryBackoffOptions = {}) {
    this.#doubling = new ItemExponentialBackoff({ baseDelayMs: options.baseMs ?? 1_000, maxDelayMs: options.maxMs ?? 300_000 });
    this.#random = options.random ?? Math.random;
  }

  /** The delay before the next attempt for `key`, counting this failure. */
  next(key: string): number {
    return Math.round(this.#doubling.when(key) * (0.9 + 0.2 * this.#random()));
  }

  reset(key: string): void {
    this.#doubling.forget(key);
  }
}
