/**
 * Exponential back-off, the one arithmetic every retry in the tree uses: the n-th consecutive failure waits
 * `baseDelayMs * factor^(n-1)`, capped at `maxDelayMs`.
 *
 * {@link ItemExponentialBackoff} keeps that count per key, the per-item half of client-go's rate limiters
 * (`ItemExponentialFailureRateLimiter`, `util/workqueue/default_rate_limiters.go`), until the key is forgotten.
 * controller-runtime's default since v0.23 (priority queue on) is exactly this limiter with 5 ms → 1000 s and no
 * global token bucket, so that is what we default to.
 */

export interface ExponentialDelay {
  /** Delay after the first failure, in ms. */
  baseDelayMs: number;
  /** Upper bound on any delay, in ms. */
  maxDelayMs: number;
  /** Growth per further failure. Default 2. */
  factor?: number;
}

/** The delay after the `failures`-th consecutive failure (1 for the first): `baseDelayMs * factor^(failures-1)`, capped. */
export function exponentialDelayMs(failures: number, { baseDelayMs, maxDelayMs, factor = 2 }: ExponentialDelay): number {
  // factor ** n reaches Infinity after ~1000 failures; Math.min keeps that at the cap, as client-go does.
  return Math.min(baseDelayMs * factor ** Math.max(0, failures - 1), maxDelayMs);
}

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
  /**
   * Spreads each delay by up to this fraction either way, at random (0.1: between 0.9 and 1.1 times the delay), so that
   * keys that failed together do not retry together. Default 0, as client-go.
   */
  jitter?: number;
  /** Injectable for tests (0 ≤ r < 1). Default Math.random. */
  random?: () => number;
}

export class ItemExponentialBackoff implements ItemBackoff {
  readonly #delay: ExponentialDelay;
  readonly #jitter: number;
  readonly #random: () => number;
  readonly #failures = new Map<string, number>();

  constructor(options: ItemExponentialBackoffOptions = {}) {
    const { baseDelayMs = 5, maxDelayMs = 1_000_000, jitter = 0, random = Math.random } = options;
    if (!(baseDelayMs > 0) || !Number.isFinite(baseDelayMs)) {
      throw new RangeError(`ItemExponentialBackoff: baseDelayMs must be a positive number, got ${baseDelayMs}`);
    }
    if (!(maxDelayMs >= baseDelayMs) || !Number.isFinite(maxDelayMs)) {
      throw new RangeError(
        `ItemExponentialBackoff: maxDelayMs must be a number >= baseDelayMs (${baseDelayMs}), got ${maxDelayMs}`,
      );
    }
    if (!(jitter >= 0 && jitter < 1)) throw new RangeError(`ItemExponentialBackoff: jitter must be in [0, 1), got ${jitter}`);
    this.#delay = { baseDelayMs, maxDelayMs };
    this.#jitter = jitter;
    this.#random = random;
  }

  when(key: string): number {
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    const delay = exponentialDelayMs(failures, this.#delay);
    return this.#jitter === 0 ? delay : Math.round(delay * (1 - this.#jitter + 2 * this.#jitter * this.#random()));
  }

  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }
}
