import { describe, expect, it } from 'vitest';
import { StreamStoppedError, teeStream } from './tee.ts';

/** One turn of the event loop: enough for every reader that can move on to do so. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A source of `count` one-byte chunks that records how far it was read and whether it was closed. */
function countingSource(count: number) {
  const state = { read: 0, closed: false, fail: undefined as Error | undefined };
  async function* source(): AsyncGenerator<Uint8Array> {
    try {
      for (let i = 0; i < count; i++) {
        await nextTurn();
        if (state.fail !== undefined) throw state.fail;
        state.read++;
        yield Uint8Array.of(i);
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, source: source() };
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<number[]> {
  const bytes: number[] = [];
  for await (const chunk of stream) bytes.push(...chunk);
  return bytes;
}

describe('teeStream', () => {
  it('gives both readers every chunk, in order', async () => {
    const { state, source } = countingSource(50);
    const tee = teeStream(source);
    const [a, b] = await Promise.all(tee.branches.map(collect));
    const all = Array.from({ length: 50 }, (_, i) => i);
    expect(a).toEqual(all);
    expect(b).toEqual(all);
    expect(state.read).toBe(50);
    await expect(tee.settled).resolves.toBeUndefined();
  });

  it('by default reads the source only as fast as the slower reader takes chunks', async () => {
    const { state, source } = countingSource(10);
    const [fast, slow] = teeStream(source).branches;
    const fastSeen: number[] = [];
    const fastDone = (async () => {
      for await (const chunk of fast) fastSeen.push(...chunk);
    })();
    const slowReader = slow[Symbol.asyncIterator]();
    expect(await slowReader.next()).toEqual({ done: false, value: Uint8Array.of(0) });
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    // The fast reader waits for the slow one: one chunk read from the source, one chunk held.
    expect(state.read).toBe(1);
    expect(fastSeen).toEqual([0]);
    expect(await slowReader.next()).toEqual({ done: false, value: Uint8Array.of(1) });
    expect(state.read).toBe(2);
    expect(await collect({ [Symbol.asyncIterator]: () => slowReader })).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    await fastDone;
    expect(fastSeen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('lets one reader run ahead by up to maxLagBytes, holding the chunks the other has not taken', async () => {
    const { state, source } = countingSource(10);
    const [fast, slow] = teeStream(source, { maxLagBytes: 3 }).branches;
    const fastSeen: number[] = [];
    const fastDone = (async () => {
      for await (const chunk of fast) fastSeen.push(...chunk);
    })();
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    // The slow reader has taken nothing: the fast one read on until 3 bytes were waiting for the slow one.
    expect(state.read).toBe(3);
    expect(fastSeen).toEqual([0, 1, 2]);
    const slowReader = slow[Symbol.asyncIterator]();
    expect(await slowReader.next()).toEqual({ done: false, value: Uint8Array.of(0) });
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    expect(state.read).toBe(4);
    expect(fastSeen).toEqual([0, 1, 2, 3]);
    expect(await collect({ [Symbol.asyncIterator]: () => slowReader })).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await fastDone;
    expect(fastSeen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('gives a lagging reader the chunks read before an error of the source, then the error', async () => {
    const failure = new Error('pg_dump exited with code 1');
    async function* failingAfterFive(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 5; i++) {
        await nextTurn();
        yield Uint8Array.of(i);
      }
      throw failure;
    }
    const [fast, slow] = teeStream(failingAfterFive(), { maxLagBytes: 100 }).branches;
    const fastResult = await collect(fast).catch((e: unknown) => e);
    expect(fastResult).toBe(failure);
    const slowSeen: number[] = [];
    const slowResult = await (async () => {
      for await (const chunk of slow) slowSeen.push(...chunk);
    })().catch((e: unknown) => e);
    expect(slowSeen).toEqual([0, 1, 2, 3, 4]);
    expect(slowResult).toBe(failure);
  });

  it('a reader that stops early fails the other even when chunks were waiting for it', async () => {
    const { state, source } = countingSource(1000);
    const tee = teeStream(source, { maxLagBytes: 100 });
    const [quitter, other] = tee.branches;
    let taken = 0;
    for await (const _chunk of quitter) if (++taken === 5) break;
    await tee.settled;
    expect(state).toMatchObject({ read: 5, closed: true });
    const error = await collect(other).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamStoppedError);
    expect((error as Error).message).toBe('the stream was stopped after 5 bytes, before its end');
  });

  it('a reader that stops early closes the source, and the other reader fails with StreamStoppedError', async () => {
    const { state, source } = countingSource(1000);
    const tee = teeStream(source);
    const [quitter, other] = tee.branches;
    const stopping = (async () => {
      for await (const _chunk of quitter) break;
    })();
    const error = await collect(other).catch((e: unknown) => e);
    await stopping;
    expect(error).toBeInstanceOf(StreamStoppedError);
    expect((error as Error).message).toBe('the stream was stopped after 1 bytes, before its end');
    await tee.settled;
    expect(state).toMatchObject({ read: 1, closed: true });
  });

  it('stop() fails a reader waiting for a consumer that never started, and closes the source unread', async () => {
    const { state, source } = countingSource(10);
    const tee = teeStream(source);
    const waiting = collect(tee.branches[0]).catch((e: unknown) => e);
    tee.stop();
    expect(await waiting).toBeInstanceOf(StreamStoppedError);
    await tee.settled;
    // A generator closed before it ran never runs at all: for pg_dump's stream, pg_dump is never started.
    expect(state.read).toBe(0);
    expect(await source.next()).toEqual({ done: true, value: undefined });
  });

  it('stop() after the end changes nothing', async () => {
    const { source } = countingSource(3);
    const tee = teeStream(source);
    const both = Promise.all(tee.branches.map(collect));
    await tee.settled;
    tee.stop();
    expect(await both).toEqual([
      [0, 1, 2],
      [0, 1, 2],
    ]);
  });

  it('an error of the source reaches both readers', async () => {
    const { state, source } = countingSource(10);
    const tee = teeStream(source);
    state.fail = new Error('pg_dump exited with code 1');
    const errors = await Promise.all(tee.branches.map((branch) => collect(branch).catch((e: unknown) => e)));
    expect(errors).toEqual([state.fail, state.fail]);
    await expect(tee.settled).resolves.toBeUndefined();
  });
});
