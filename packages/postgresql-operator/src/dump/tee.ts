/**
 * One stream read by two consumers that must both see all of it: a backup's dump goes to the store and, at the same
 * time, to pg_restore, which decodes it (run-backup.ts). The source is read one chunk at a time, for whichever consumer
 * asks first, and every chunk is held until both have taken it. One consumer may run ahead of the other only as far as
 * `maxLagBytes` allows: while the other has more than that waiting, the source is not read, and the slower consumer
 * paces the stream (and, through the pipe, pg_dump). At most `maxLagBytes` plus one chunk is ever held, however large
 * the dump.
 *
 * Neither consumer may go on alone: a consumer that stops before the end (it failed, or stopped reading) stops the
 * stream, and so does {@link Tee.stop}. Stopping closes the source (for pg_dump's stream that kills pg_dump) and makes
 * the other consumer's reads throw {@link StreamStoppedError}. An error of the source reaches both consumers, each after
 * the chunks read before it.
 */

/** Thrown to a consumer whose stream was stopped because the other consumer stopped or {@link Tee.stop} was called. */
export class StreamStoppedError extends Error {
  override name = 'StreamStoppedError';
}

export interface TeeOptions {
  /**
   * How many bytes one consumer may be ahead of the other. Default 0: the consumers go in step, and the next chunk is
   * read only once both have taken the last one.
   */
  maxLagBytes?: number;
}

export interface Tee {
  readonly branches: readonly [AsyncIterable<Uint8Array>, AsyncIterable<Uint8Array>];
  /**
   * Stops the stream unless it already ended. For a consumer that settled without reading to the end in a way the tee
   * cannot see (it failed before it started reading): the other consumer would wait for it forever.
   */
  stop(): void;
  /** Settles once the source is done with: read to its end, failed, or closed after a stop (pg_dump reaped). */
  readonly settled: Promise<void>;
}

export function teeStream(source: AsyncIterable<Uint8Array>, options: TeeOptions = {}): Tee {
  const { maxLagBytes = 0 } = options;
  const iterator = source[Symbol.asyncIterator]();
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let ended = false;
  let failure: { error: unknown } | undefined;
  let stopped: StreamStoppedError | undefined;
  let bytes = 0;
  let reading = false;
  const asking = [false, false];
  // Chunks read from the source that each consumer has not taken yet.
  const waiting = [new ChunkQueue(), new ChunkQueue()] as const;
  // Resolved and replaced whenever something a waiting consumer may be waiting for happens: a chunk read or taken, the
  // end, an error, a stop.
  let changed = Promise.withResolvers<undefined>();
  function signalChange(): void {
    changed.resolve(undefined);
    changed = Promise.withResolvers();
  }

  function readNextChunk(): void {
    reading = true;
    iterator
      .next()
      .then(
        (result) => {
          if (result.done === true) {
            ended = true;
            settle();
          } else if (stopped === undefined) {
            bytes += result.value.byteLength;
            for (const queue of waiting) queue.push(result.value);
          }
        },
        (error: unknown) => {
          failure = { error };
          ended = true;
          settle();
        },
      )
      .finally(() => {
        reading = false;
        signalChange();
      });
  }

  async function next(self: 0 | 1): Promise<IteratorResult<Uint8Array>> {
    const other = self === 0 ? 1 : 0;
    const mine = waiting[self];
    const theirs = waiting[other];
    asking[self] = true;
    try {
      for (;;) {
        if (stopped !== undefined) throw stopped;
        const chunk = mine.shift();
        if (chunk !== undefined) {
          signalChange();
          return { done: false, value: chunk };
        }
        if (failure !== undefined) throw failure.error;
        if (ended) return { done: true, value: undefined };
        const change = changed.promise;
        // Read ahead of the other consumer only while it has less than maxLagBytes waiting; past that, or with no lag
        // allowed, read only once it has taken everything and asks too.
        if (!reading && (theirs.bytes < maxLagBytes || (theirs.bytes === 0 && asking[other]))) readNextChunk();
        await change;
      }
    } finally {
      asking[self] = false;
    }
  }

  function stop(): void {
    if (ended || stopped !== undefined) return;
    stopped = new StreamStoppedError(`the stream was stopped after ${bytes} bytes, before its end`);
    for (const queue of waiting) queue.clear();
    signalChange();
    // An async generator runs `return` after a read in progress; either way `settled` waits for the source to close.
    Promise.resolve(iterator.return?.()).then(settle, settle);
  }

  function branch(self: 0 | 1): AsyncIterableIterator<Uint8Array> {
    let finished = false;
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () =>
        next(self).then(
          (result) => {
            if (result.done === true) finished = true;
            return result;
          },
          (error: unknown) => {
            finished = true;
            throw error;
          },
        ),
      // Called by `for await` when the consumer leaves the loop early (an error, a break): it will read no more.
      return: async () => {
        if (!finished) {
          finished = true;
          stop();
          await settled;
        }
        return { done: true, value: undefined };
      },
    };
  }

  return { branches: [branch(0), branch(1)], stop, settled };
}

/** Chunks in order, with their total size. A plain array: a backup queues at most 16 MiB in chunks of 64 KiB or more. */
class ChunkQueue {
  #chunks: Uint8Array[] = [];
  bytes = 0;

  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.bytes += chunk.byteLength;
  }

  shift(): Uint8Array | undefined {
    const chunk = this.#chunks.shift();
    if (chunk !== undefined) this.bytes -= chunk.byteLength;
    return chunk;
  }

  clear(): void {
    this.#chunks = [];
    this.bytes = 0;
  }
}
