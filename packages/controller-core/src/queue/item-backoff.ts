/**
 * Per-key exponential backoff, the per-item half of client-go's rate limiters
 * (`ItemExponentialFailureRateLimiter`, `util/workqueue/default_rate_limiters.go`): the n-th consecutive failure of a
 * key waits `baseDelayMs * 2^(n-1)`, capped at `maxDelayMs`, until the key is forgotten.
 *
 * controller-runtime's default since v0.23 (priority queue on) is exactly this limiter with 5 ms → 1000 s and no
 * global token bucket, so that is what we default to.
 */

/** What a work queue needs from a backoff policy; lets a caller swap in, say, a Retry-After-aware policy. */
export interface ItemBackoff {
  /** Delay before the key's next retry, in ms; counts one more failure for the key. */
  when(key: string): number;
  /** How many failures the key has had since it was last forgotten. */
  retries(key: string): number;
  /** Clears the key's failure count, so its next failure starts again at the base delay. */
  forget(key: string): void;
}

export interface ItemExponentialBackoffOptions {
  /** Delay after the first failure, in ms; doubled after each further failure. Default 5 (client-go's 5 ms). */
  baseDelayMs?: number;
  /** Upper bound on any delay, in ms. Default 1_000_000 (client-go's 1000 s). */
  maxDelayMs?: number;
}

export class ItemExponentialBackoff implements ItemBackoff {
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #failures = new Map<string, number>();

  constructor(options: ItemExponentialBackoffOptions = {}) {
    const { baseDelayMs = 5, maxDelayMs = 1_000_000 } = options;
    if (!(baseDelayMs > 0) || !Number.isFinite(baseDelayMs)) {
      throw new RangeError(`ItemExponentialBackoff: baseDelayMs must be a positive number, got ${baseDelayMs}`);
    }
    if (!(maxDelayMs >= baseDelayMs) || !Number.isFinite(maxDelayMs)) {
      throw new RangeError(
        `ItemExponentialBackoff: maxDelayMs must be a number >= baseDelayMs (${baseDelayMs}), got ${maxDelayMs}`,
      );
    }
    this.#baseDelayMs = baseDelayMs;
    this.#maxDelayMs = maxDelayMs;
  }

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // 2 ** failures reaches Infinity after ~1000 failures; Math.min keeps that at the cap, as client-go does.
    return Math.min(this.#baseDelayMs * 2 ** failures, this.#maxDelayMs);
  }

  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }
}
