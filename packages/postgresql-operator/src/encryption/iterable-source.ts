/**
 * The operator's streams (pg_dump's output, a stored backup being read) are async iterables; age-encryption streams
 * through WHATWG streams. This is the bridge from the one to the other, with what a backup needs on top:
 *
 * - it reads the iterable only when the stream is pulled (high water mark 0), so nothing is read ahead and the
 *   consumer's pace reaches the source (and, through its pipe, pg_dump);
 * - {@link IterableSource.close} ends the iterable (killing pg_dump, releasing a store's response) whatever the
 *   streams built on top of it are doing, so a caller that stops early or fails never leaves its source open;
 * - it remembers whether the iterable itself failed, so a caller can tell the source's own error (pg_dump failing,
 *   the store failing) from a failure of what was built on it (a ciphertext that does not authenticate).
 */
export class IterableSource {
  readonly stream: ReadableStream<Uint8Array>;
  readonly #iterator: AsyncIterator<Uint8Array>;
  #finished = false;
  #cancelled = false;
  #closing: Promise<void> | undefined;
  #reading: Promise<unknown> = Promise.resolve();
  #failure: { error: unknown } | undefined;

  constructor(iterable: AsyncIterable<Uint8Array>) {
    this.#iterator = iterable[Symbol.asyncIterator]();
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const result = await this.#next();
          if (this.#cancelled) return;
          // Closed by close() while this read was under way: what it read is dropped, and the stream ends here.
          if (result.done === true || this.#closing !== undefined) controller.close();
          else controller.enqueue(result.value);
        },
        cancel: () => {
          this.#cancelled = true;
          return this.close();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The iterable's own error, when it threw one. */
  get failure(): { error: unknown } | undefined {
    return this.#failure;
  }

  /** Ends the iterable unless it already ended (after any read in progress); settles once it has. Safe to call twice. */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    const wasFinished = this.#finished;
    this.#finished = true;
    this.#closing = wasFinished
      ? Promise.resolve()
      : this.#reading.then(async () => {
          await this.#iterator.return?.();
        });
    return this.#closing;
  }

  async #next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#finished) return { done: true, value: undefined };
    const reading = this.#iterator.next();
    this.#reading = reading.catch(() => undefined);
    try {
      const result = await reading;
      if (result.done === true) this.#finished = true;
      return result;
    } catch (error) {
      this.#finished = true;
      this.#failure = { error };
      throw error;
    }
  }
}
