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
 * once the resource is in sync. controller-core's own back-off starts at 5 ms, which suits API-server conflicts but
 * would send a Prism request that keeps failing ten times in the first second.
 */
export class RetryBackoff {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;
  readonly #failures = new Map<string, number>();

  constructor(options: RetryBackoffOptions = {}) {
    this.#baseMs = options.baseMs ?? 1_000;
    this.#maxMs = options.maxMs ?? 300_000;
    this.#random = options.random ?? Math.random;
  }

  /** The delay before the next attempt for `key`, counting this failure. */
  next(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const delay = Math.min(this.#baseMs * 2 ** failures, this.#maxMs);
    return Math.round(delay * (0.9 + 0.2 * this.#random()));
  }

  reset(key: string): void {
    this.#failures.delete(key);
  }
}
