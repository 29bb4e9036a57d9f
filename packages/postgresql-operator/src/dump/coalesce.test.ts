import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce.ts';

/** Bytes arriving as from a pipe: one chunk per turn of the event loop. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function* pieces(sizes: number[]): AsyncGenerator<Uint8Array> {
  let next = 0;
  for (const size of sizes) {
    await nextTurn();
    yield Uint8Array.from({ length: size }, () => next++ % 251);
  }
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('coalesce', () => {
  it('joins small chunks into chunks of at least the given size, the rest last, bytes unchanged', async () => {
    const sizes = [4096, 4096, 4096, 1000, 20_000, 3, 4096];
    const chunks = await collect(coalesce(pieces(sizes), 10_000));
    expect(chunks.map((chunk) => chunk.byteLength)).toEqual([12_288, 21_000, 4099]);
    expect(Buffer.concat(chunks)).toEqual(Buffer.concat(await collect(pieces(sizes))));
  });

  it('passes large chunks on as they are, and yields nothing for an empty stream', async () => {
    expect((await collect(coalesce(pieces([70_000]), 65_536))).map((chunk) => chunk.byteLength)).toEqual([70_000]);
    expect(await collect(coalesce(pieces([]), 65_536))).toEqual([]);
  });
});
