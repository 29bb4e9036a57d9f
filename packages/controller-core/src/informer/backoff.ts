export interface ReconnectBackoffOptions {
  /** Ceiling of the first wait. Default 800 ms (client-go reflector). */
  initialMs?: number;
  /** Largest ceiling. Default 30 s. */
  maxMs?: number;
  /** Ceiling growth per failure. Default 2. */
  factor?: number;
  /** Back to `initialMs` when the previous wait was asked for longer ago than this (a healthy stretch). Default 2 min. */
  resetAfterMs?: number;
  /** Injectable for tests. Default Math.random and Date.now. */
  random?: () => number;
  now?: () => number;
}

/**
 * The reflector's wait before listing or watching again after a failure: client-go's 800 ms → 30 s, factor 2, reset
 * after 2 min without failures, with full jitter (a uniform wait between 0 and the ceiling) so that many informers cut
 * off together (an API server restart) do not reconnect in lockstep.
 */
export class ReconnectBackoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #resetAfterMs: number;
  readonly #random: () => number;
  readonly #now: () => number;
  #ceilingMs: number;
  #lastAskedAt: number | undefined;

  constructor(options: ReconnectBackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 800;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#resetAfterMs = options.resetAfterMs ?? 120_000;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
    this.#ceilingMs = this.#initialMs;
  }

  /** The wait before the next attempt; each call raises the ceiling for the one after. */
  nextDelayMs(): number {
    const now = this.#now();
    if (this.#lastAskedAt !== undefined && now - this.#lastAskedAt > this.#resetAfterMs) this.#ceilingMs = this.#initialMs;
    this.#lastAskedAt = now;
    const delay = this.#random() * this.#ceilingMs;
    this.#ceilingMs = Math.min(this.#ceilingMs * this.#factor, this.#maxMs);
    return delay;
  }
}
