/**
 * One stream read by two consumers that must both see all of it: a backup's dump goes to the store and, at the same
 * time, to pg_restore, which decodes it (run-backup.ts). The source is read one chunk at a time, and the next chunk
 * only once both consumers have asked for it: the slower consumer paces the stream (and, through the pipe, pg_dump),
 * and no more than the chunk in hand is ever held, however large the dump.
 *
 * Neither consumer may go on alone: a consumer that stops before the end (it failed, or stopped reading) stops the
 * stream, and so does {@link Tee.stop}. Stopping closes the source (for pg_dump's stream that kills pg_dump) and makes
 * the other consumer's reads throw {@link StreamStoppedError}. An error of the source reaches both consumers.
 */

/** Thrown to a consumer whose stream was stopped because the other consumer stopped or {@link Tee.stop} was called. */
export class StreamStoppedError extends Error {
  override name = 'StreamStoppedError';
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

export function teeStream(source: AsyncIterable<Uint8Array>): Tee {
  const iterator = source[Symbol.asyncIterator]();
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let ended = false;
  let stopped: StreamStoppedError | undefined;
  let bytes = 0;
  // The consumer that asked for the next chunk first, waiting for the other.
  let waiting: PromiseWithResolvers<IteratorResult<Uint8Array>> | undefined;

  function pull(): Promise<IteratorResult<Uint8Array>> {
    return iterator.next().then(
      (result) => {
        if (result.done === true) {
          ended = true;
          settle();
        } else {
          bytes += result.value.byteLength;
        }
        if (stopped !== undefined) throw stopped;
        return result;
      },
      (error: unknown) => {
        ended = true;
        settle();
        throw error;
      },
    );
  }

  function next(): Promise<IteratorResult<Uint8Array>> {
    if (stopped !== undefined) return Promise.reject(stopped);
    if (ended) return Promise.resolve({ done: true, value: undefined });
    if (waiting === undefined) {
      waiting = Promise.withResolvers();
      return waiting.promise;
    }
    const first = waiting;
    waiting = undefined;
    const result = pull();
    first.resolve(result);
    return result;
  }

  function stop(): void {
    if (ended || stopped !== undefined) return;
    stopped = new StreamStoppedError(`the stream was stopped after ${bytes} bytes, before its end`);
    waiting?.reject(stopped);
    waiting = undefined;
    // An async generator runs `return` after a read in progress; either way `settled` waits for the source to close.
    Promise.resolve(iterator.return?.()).then(settle, settle);
  }

  function branch(): AsyncIterableIterator<Uint8Array> {
    let finished = false;
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () =>
        next().then(
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

  return { branches: [branch(), branch()], stop, settled };
}
