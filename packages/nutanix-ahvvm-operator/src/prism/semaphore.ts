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

  /** Runs `work` once a permit is free and gives the permit back when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #acquire(): Promise<void> {
    if (this.#inUse < this.limit) {
      this.#inUse += 1;
      return Promise.resolve();
    }
    // The permit passes straight from the releaser to the next waiter, so #inUse never dips in between.
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#inUse -= 1;
  }
}
