import { createHash, type Hash } from 'node:crypto';

/** Size and SHA-256 of some bytes, hex. */
export interface Digest {
  size: number;
  sha256: string;
}

/** Size and SHA-256 of bytes as they stream past: one pass, nothing held in memory. */
export class StreamDigest {
  #hash: Hash = createHash('sha256');
  #size = 0;

  update(chunk: Uint8Array): void {
    this.#hash.update(chunk);
    this.#size += chunk.byteLength;
  }

  /** Size and hex SHA-256 of everything seen; call once, after the last chunk. */
  result(): Digest {
    return { size: this.#size, sha256: this.#hash.digest('hex') };
  }
}

/** Passes `source` through unchanged, feeding every chunk to `digest` on the way. */
export async function* digesting(
  source: AsyncIterable<Uint8Array>,
  digest: StreamDigest,
): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of source) {
    digest.update(chunk);
    yield chunk;
  }
}
