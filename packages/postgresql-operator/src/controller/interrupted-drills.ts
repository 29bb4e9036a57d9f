import { ItemExponentialBackoff } from '@k8s-operators/controller-core';

/**
 * When a restore drill that was interrupted (its scratch pod lost, its store unreachable, its password missing) may
 * start again: 15 s after the first interruption, doubling up to 15 min, until a drill is recorded. The gate is at the
 * scratch pod's creation, not only in the requeue: deleting the interrupted pod wakes the controller at once (its
 * pods are watched), so without it a store that stays unreachable would have scratch pods created, started and
 * deleted back to back for as long as the outage lasts.
 */
const RETRY_DELAY = { baseDelayMs: 15_000, maxDelayMs: 15 * 60_000 };

export class InterruptedDrills {
  readonly #backoff = new ItemExponentialBackoff(RETRY_DELAY);
  readonly #notBefore = new Map<string, number>();

  /** How long the drill of `key` must still wait before a new scratch pod; 0 when it may start now. */
  waitMs(key: string, now: number): number {
    return Math.max(0, (this.#notBefore.get(key) ?? 0) - now);
  }

  /** Counts an interruption of the drill of `key`; returns how long until it may start again. */
  interrupted(key: string, now: number): number {
    const delay = this.#backoff.when(key);
    this.#notBefore.set(key, now + delay);
    return delay;
  }

  /** A drill of `key` was recorded (passed or failed), or its database is gone: the next interruption starts over. */
  finished(key: string): void {
    this.#backoff.forget(key);
    this.#notBefore.delete(key);
  }
}
