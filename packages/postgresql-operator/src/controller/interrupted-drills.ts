import { exponentialDelayMs } from '@k8s-operators/controller-core';

/**
 * When a restore drill that was interrupted (its scratch pod lost, its store unreachable, its password missing) may
 * start again: 15 s after the first interruption, doubling up to 15 min, until a drill is recorded. The gate is at the
 * scratch pod's creation, not only in the requeue: deleting the interrupted pod wakes the controller at once (its
 * pods are watched), so without it a store that stays unreachable would have scratch pods created, started and
 * deleted back to back for as long as the outage lasts.
 */
const RETRY_DELAY = { baseDelayMs: 15_000, maxDelayMs: 15 * 60_000 };

export class InterruptedDrills {
  readonly #drills = new Map<string, { interruptions: number; notBefore: number }>();

  /** How long the drill of `key` must still wait before a new scratch pod; 0 when it may start now. */
  waitMs(key: string, now: number): number {
    return Math.max(0, (this.#drills.get(key)?.notBefore ?? 0) - now);
  }

  /** Counts an interruption of the drill of `key`; returns how long until it may start again. */
  interrupted(key: string, now: number): number {
    const interruptions = (this.#drills.get(key)?.interruptions ?? 0) + 1;
    const delay = exponentialDelayMs(interruptions, RETRY_DELAY);
    this.#drills.set(key, { interruptions, notBefore: now + delay });
    return delay;
  }

  /** A drill of `key` was recorded (passed or failed), or its database is gone: the next interruption starts over. */
  finished(key: string): void {
    this.#drills.delete(key);
  }
}
