// Streams and keys for the encryption tests and the benchmark: a source that records how far it was read and whether
// it was closed, and key pairs made the way age-keygen makes them.
import { generateX25519Identity, identityToRecipient } from 'age-encryption';

export interface KeyPair {
  /** AGE-SECRET-KEY-1..., as the one line of a key file. */
  identity: string;
  /** age1... */
  recipient: string;
}

export async function newKeyPair(): Promise<KeyPair> {
  const identity = await generateX25519Identity();
  return { identity, recipient: await identityToRecipient(identity) };
}

/** A source of `data` in pieces of `pieceBytes`, which says how much was read and whether it ended or was closed. */
export class RecordingSource implements AsyncIterable<Uint8Array> {
  bytesRead = 0;
  state: 'unread' | 'reading' | 'ended' | 'closed' | 'failed' = 'unread';
  readonly #data: Uint8Array;
  readonly #pieceBytes: number;
  readonly #failAfter: { bytes: number; error: Error } | undefined;

  constructor(data: Uint8Array, pieceBytes: number, failAfter?: { bytes: number; error: Error }) {
    this.#data = data;
    this.#pieceBytes = pieceBytes;
    this.#failAfter = failAfter;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the pieces are in memory; only the protocol is async, as a stream's is
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
    this.state = 'reading';
    try {
      for (let at = 0; at < this.#data.byteLength; at += this.#pieceBytes) {
        if (this.#failAfter !== undefined && at >= this.#failAfter.bytes) throw this.#failAfter.error;
        const piece = this.#data.subarray(at, at + this.#pieceBytes);
        this.bytesRead += piece.byteLength;
        yield piece;
      }
      this.state = 'ended';
    } catch (error) {
      this.state = 'failed';
      throw error;
    } finally {
      if (this.state === 'reading') this.state = 'closed';
    }
  }
}

export async function readAll(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}
