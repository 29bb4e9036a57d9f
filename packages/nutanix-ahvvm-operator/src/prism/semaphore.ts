/**
 * Counts in-flight work against a limit; callers beyond it wait in arrival order. The Prism client holds one permit
 * per HTTP request (not across its retry waits), so a burst of reconciles cannot flood Prism Central with requests.
 */
export class Semaphore {
  readonly limit: number;
  #inUse = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a semaphore needs a limit of at least 1, got ${limit}`);
    this.limit = limit;
  }

  get inUse(): number {
    return this.#inUse;
  }

  /** Runs `work` once a permit is free and gives the permit back when it settles; `signal` ends the wait for a permit. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.#inUse < this.limit) {
      this.#inUse += 1;
      return Promise.resolve();
    }
    // The permit passes straight from the releaser to the next waiter, so #inUse never dips in between.
    return new Promise((resolve, reject) => {
      const granted = (): void => {
        signal?.removeEventListener('abort', abandoned);
        resolve();
      };
      const abandoned = (): void => {
        // Still queued, so no permit was passed to it: leaving the queue is all there is to undo.
        this.#waiting.splice(this.#waiting.indexOf(granted), 1);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', abandoned, { once: true });
      this.#waiting.push(granted);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#inUse -= 1;
  }
}
