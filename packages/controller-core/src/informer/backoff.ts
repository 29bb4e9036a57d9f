import { exponentialDelayMs, type ExponentialDelay } from '../queue/item-backoff.ts';

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
 * off together (an API server restart) do not reconnect in lockstep. The ceiling is the work queue's
 * {@link exponentialDelayMs}, of the failures since the last reset.
 */
export class ReconnectBackoff {
  readonly #delay: ExponentialDelay;
  readonly #resetAfterMs: number;
  readonly #random: () => number;
  readonly #now: () => number;
  #failures = 0;
  #lastAskedAt: number | undefined;

  constructor(options: ReconnectBackoffOptions = {}) {
    this.#delay = { baseDelayMs: options.initialMs ?? 800, maxDelayMs: options.maxMs ?? 30_000, factor: options.factor ?? 2 };
    this.#resetAfterMs = options.resetAfterMs ?? 120_000;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
  }

  /** The wait before the next attempt; each call raises the ceiling for the one after. */
  nextDelayMs(): number {
    const now = this.#now();
    if (this.#lastAskedAt !== undefined && now - this.#lastAskedAt > this.#resetAfterMs) this.#failures = 0;
    this.#lastAskedAt = now;
    return this.#random() * exponentialDelayMs(++this.#failures, this.#delay);
  }
}
