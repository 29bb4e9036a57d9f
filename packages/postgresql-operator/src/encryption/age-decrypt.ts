import type { KeyObject } from 'node:crypto';
import { Decrypter, type Identity, type Stanza } from 'age-encryption';
import type { AgeIdentity } from './age-keys.ts';
import { openChunk, PAYLOAD_CHUNK_BYTES, PAYLOAD_NONCE_BYTES, payloadKey, TAG_BYTES } from './age-payload.ts';

/**
 * Decrypts an age file as it streams, with an {@link AgeIdentity}, in two steps a restore can rely on:
 *
 * 1. {@link openAgeFile} reads the header only and settles before any plaintext exists: it rejects at once with
 *    {@link NotAnAgeFileError}, {@link NoMatchingIdentityError} or {@link DamagedAgeFileError} (a header that is
 *    malformed or fails its MAC), having closed the ciphertext. A restore that awaits it before starting pg_restore
 *    never starts one for a backup it cannot decrypt.
 * 2. The plaintext it resolves to yields the payload chunk by chunk (64 KiB each), each authenticated before it is
 *    yielded; the last chunk is yielded only once it is known to be the file's marked last chunk. A ciphertext cut
 *    short (even at a chunk boundary), extended or altered makes the iteration throw {@link DamagedAgeFileError}, and
 *    an error of the ciphertext's own source (the store) comes out as that same error.
 *
 * What a consumer MUST do: treat the plaintext as a whole only once the iteration has ended without an error. The
 * chunks before a failure were authentic, but not the whole file: commit nothing before the end (pg_restore
 * `--single-transaction` fed by this stream is killed when it throws, so it never commits; startPgTool does that).
 *
 * Memory stays bounded whatever the size: the ciphertext is read only as the plaintext is consumed, and at most one
 * chunk and the piece of ciphertext after it are held.
 *
 * age-encryption reads the header (parses it, unwraps the file key with the identity, checks the header's MAC); the
 * payload is opened by age-payload.ts with Node's cipher.
 */

/** Why a file could not be decrypted: for a condition's reason, a metric's label. */
export type AgeDecryptReason = 'NotAnAgeFile' | 'NoMatchingIdentity' | 'DamagedAgeFile';

export abstract class AgeDecryptError extends Error {
  abstract readonly reason: AgeDecryptReason;
}

/** The data does not begin as an age v1 file does: an unencrypted backup, or some other file. */
export class NotAnAgeFileError extends AgeDecryptError {
  override name = 'NotAnAgeFileError';
  readonly reason = 'NotAnAgeFile';
}

/** None of the identity's keys opens the file: it was encrypted to other recipients. Thrown before any plaintext. */
export class NoMatchingIdentityError extends AgeDecryptError {
  override name = 'NoMatchingIdentityError';
  readonly reason = 'NoMatchingIdentity';
  /** The type of each recipient stanza in the file's header, e.g. ["X25519", "X25519"] (age does not name the keys). */
  readonly fileStanzas: readonly string[];
  /** The recipients the caller says the file was encrypted to (a backup's manifest), when it said. */
  readonly encryptedTo: readonly string[] | undefined;
  /** The recipients of the identity's keys. */
  readonly identityRecipients: readonly string[];

  constructor(fileStanzas: readonly string[], encryptedTo: readonly string[] | undefined, identityRecipients: readonly string[]) {
    const stanzas = `${fileStanzas.length} recipient stanza(s) in its header: ${fileStanzas.join(', ') || 'none'}`;
    const fileFor =
      encryptedTo === undefined
        ? `it was encrypted to other recipients (${stanzas}; an age file does not name its recipients' keys)`
        : `it was encrypted to ${encryptedTo.join(', ')} (${stanzas})`;
    super(
      `the identity given cannot decrypt this file: ${fileFor}, and the identity given holds the key of ` +
        `${identityRecipients.join(', ')}. Give the identity (AGE-SECRET-KEY-1...) of a recipient it was encrypted to.`,
    );
    this.fileStanzas = fileStanzas;
    this.encryptedTo = encryptedTo;
    this.identityRecipients = identityRecipients;
  }
}

/** The file is an age file, but cut short, extended or altered: it does not authenticate. Nothing of it may be used. */
export class DamagedAgeFileError extends AgeDecryptError {
  override name = 'DamagedAgeFileError';
  readonly reason = 'DamagedAgeFile';
}

export interface OpenAgeFileOptions {
  /**
   * The recipients the file was encrypted to, as the caller knows them (a backup's manifest): named in
   * {@link NoMatchingIdentityError}'s message, since the file itself does not name them.
   */
  encryptedTo?: readonly string[];
}

/** What every age v1 file begins with (age-encryption.org/v1, "Header"). */
const AGE_V1_INTRO = new TextEncoder().encode('age-encryption.org/v1\n');
/** Where the header's last line, its MAC, begins: stanza lines begin with "-> " and their bodies are base64. */
const MAC_LINE = Buffer.from('\n--- ');
/**
 * The longest header read before the file is called damaged, so a file with no end of header is not held whole. Ours
 * are a few hundred bytes (at most 8 recipients); this leaves room for any file a person encrypts with `age` to many.
 */
const MAX_HEADER_BYTES = 1024 * 1024;
/** A sealed payload chunk: 64 KiB of ciphertext and its tag. */
const SEALED_CHUNK_BYTES = PAYLOAD_CHUNK_BYTES + TAG_BYTES;

/** Reads the header of the age file `ciphertext` and resolves to its plaintext; see above for what throws when. */
export async function openAgeFile(
  ciphertext: AsyncIterable<Uint8Array>,
  identity: AgeIdentity,
  options: OpenAgeFileOptions = {},
): Promise<AsyncIterableIterator<Uint8Array, void>> {
  // Errors of the source (the store's, and checkIntro's) pass through everything below as they are.
  const source = new PieceReader(checkIntro(ciphertext));
  let key: KeyObject;
  try {
    const header = await readHeader(source);
    const fileKey = await unwrapFileKey(header, identity, options);
    if (!(await source.fill(PAYLOAD_NONCE_BYTES))) {
      throw new DamagedAgeFileError('the age file is cut short: it ends inside the payload nonce after its header; nothing was decrypted');
    }
    key = payloadKey(fileKey, source.take(PAYLOAD_NONCE_BYTES));
  } catch (error) {
    await source.close();
    throw error;
  }
  const chunks = payload(source, key);
  // The header was read, so the ciphertext is open: a caller that drops the plaintext without reading it (its
  // pg_restore failed to start) still closes the ciphertext by calling return(), which an unstarted generator skips.
  const iterator: AsyncIterableIterator<Uint8Array, void> = {
    next: () => chunks.next(),
    return: async () => {
      await chunks.return(undefined);
      await source.close();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** The header, up to and with its MAC line; what follows it stays in `source`. */
async function readHeader(source: PieceReader): Promise<Uint8Array> {
  for (;;) {
    const read = source.peek();
    const mac = read.indexOf(MAC_LINE);
    const end = mac < 0 ? -1 : read.indexOf(0x0a, mac + MAC_LINE.byteLength);
    if (end >= 0) return source.take(end + 1);
    if (read.byteLength > MAX_HEADER_BYTES) {
      throw new DamagedAgeFileError(`the age file's header is damaged: it has no end (its MAC line) in its first ${MAX_HEADER_BYTES} bytes; nothing was decrypted`);
    }
    if (!(await source.readMore())) {
      throw new DamagedAgeFileError(`the age file is cut short: it ends after ${read.byteLength} bytes, inside its header; nothing was decrypted`);
    }
  }
}

/**
 * The file key, from the header's stanzas, by age-encryption: it parses the header, finds the identity's stanza and
 * checks the header's MAC with the key it unwraps.
 */
async function unwrapFileKey(header: Uint8Array, identity: AgeIdentity, options: OpenAgeFileOptions): Promise<Uint8Array> {
  const decrypter = new Decrypter();
  identity.addTo(decrypter);
  // Asked only when none of the identity's keys matched (a Decrypter tries its identities in order, first match
  // wins): it keeps the stanzas' types for the error, and matches nothing itself.
  let unmatched: readonly Stanza[] | undefined;
  const witness: Identity = {
    unwrapFileKey: (stanzas) => {
      unmatched = stanzas;
      return null;
    },
  };
  decrypter.addIdentity(witness);
  try {
    return await decrypter.decryptHeader(header);
  } catch (error) {
    if (unmatched !== undefined) {
      throw new NoMatchingIdentityError(unmatched.map((stanza) => stanza.args[0] ?? '(empty)'), options.encryptedTo, identity.recipients);
    }
    throw new DamagedAgeFileError(`the age file's header is damaged: ${describe(error)}; nothing was decrypted`, { cause: error });
  }
}

/**
 * The payload's plaintext, chunk by chunk, each authenticated before it is yielded. A chunk is opened as one of the
 * middle only once the bytes after it have come, and as the last only once the source has ended, so the chunk marked
 * last is the one at the end, and nothing else is.
 */
async function* payload(source: PieceReader, key: KeyObject): AsyncGenerator<Uint8Array, void, undefined> {
  let bytes = 0;
  let index = 0;
  const open = (last: boolean, sealed: Uint8Array): Buffer => {
    try {
      const plaintext = openChunk(key, index, last, sealed);
      // Only a file with no plaintext at all ends with an empty chunk (age-encryption.org/v1, "Payload").
      if (last && index > 0 && plaintext.byteLength === 0) throw new Error('its last chunk is empty, which only an empty file\'s may be');
      return plaintext;
    } catch (error) {
      throw new DamagedAgeFileError(
        `the age file does not authenticate after ${bytes} bytes of plaintext (${describe(error)}): it was cut short, ` +
          `extended or altered; none of it may be used`,
        { cause: error },
      );
    }
  };
  try {
    for (;;) {
      const last = !(await source.fill(SEALED_CHUNK_BYTES + 1));
      const plaintext = open(last, source.take(last ? source.buffered : SEALED_CHUNK_BYTES));
      bytes += plaintext.byteLength;
      index++;
      yield plaintext;
      if (last) return;
    }
  } finally {
    await source.close();
  }
}

/**
 * A source read in pieces as they come, with what was read and not yet taken held in order: at most the bytes asked
 * for plus one piece. Closing it ends the source (releasing a store's response) unless the source ended or failed.
 */
class PieceReader {
  readonly #source: AsyncIterator<Uint8Array>;
  #pieces: Uint8Array[] = [];
  #buffered = 0;
  #settled = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  /** Bytes read and not yet taken. */
  get buffered(): number {
    return this.#buffered;
  }

  /** Reads one more piece; false once the source has ended. The source's error is thrown as it is. */
  async readMore(): Promise<boolean> {
    if (this.#settled) return false;
    let read: IteratorResult<Uint8Array>;
    try {
      read = await this.#source.next();
    } catch (error) {
      this.#settled = true;
      throw error;
    }
    if (read.done === true) {
      this.#settled = true;
      return false;
    }
    this.#pieces.push(read.value);
    this.#buffered += read.value.byteLength;
    return true;
  }

  /** Reads until `count` bytes are held; false when the source ends before. */
  async fill(count: number): Promise<boolean> {
    while (this.#buffered < count) if (!(await this.readMore())) return false;
    return true;
  }

  /** What is held, as one buffer (the pieces joined, if there are several). */
  peek(): Buffer {
    if (this.#pieces.length > 1) this.#pieces = [Buffer.concat(this.#pieces, this.#buffered)];
    const held = this.#pieces[0] ?? new Uint8Array(0);
    return Buffer.from(held.buffer, held.byteOffset, held.byteLength);
  }

  /**
   * The next `count` bytes of those held (at most {@link buffered}): a view of the first piece when it holds them all,
   * else a copy of just those bytes (a sealed chunk is 16 bytes longer than the 64 KiB pieces a file is read in).
   */
  take(count: number): Uint8Array {
    if (count > this.#buffered) throw new Error(`PieceReader: ${count} bytes asked for, ${this.#buffered} held`);
    this.#buffered -= count;
    const head = this.#pieces[0];
    if (head !== undefined && head.byteLength >= count) {
      if (head.byteLength > count) this.#pieces[0] = head.subarray(count);
      else this.#pieces.shift();
      return head.subarray(0, count);
    }
    const taken = Buffer.allocUnsafe(count);
    let filled = 0;
    while (filled < count) {
      const piece = this.#pieces.shift() ?? new Uint8Array(0);
      const part = piece.subarray(0, count - filled);
      taken.set(part, filled);
      filled += part.byteLength;
      if (part.byteLength < piece.byteLength) this.#pieces.unshift(piece.subarray(part.byteLength));
    }
    return taken;
  }

  /** Ends the source unless it ended or failed; safe to call again. */
  async close(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    this.#pieces = [];
    this.#buffered = 0;
    await this.#source.return?.();
  }
}

/** Passes `ciphertext` on, failing with NotAnAgeFileError as soon as its first bytes are not those of an age v1 file. */
async function* checkIntro(ciphertext: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array, void, undefined> {
  let checked = 0;
  for await (const chunk of ciphertext) {
    const upTo = Math.min(chunk.byteLength, AGE_V1_INTRO.byteLength - checked);
    for (let i = 0; i < upTo; i++) {
      if (chunk[i] !== AGE_V1_INTRO[checked + i]) {
        throw new NotAnAgeFileError(
          `the data is not an age file: it does not begin with "age-encryption.org/v1" (an unencrypted backup, or ` +
            `an ASCII-armored file, which is not read here)`,
        );
      }
    }
    checked += upTo;
    yield chunk;
  }
  if (checked === 0) throw new NotAnAgeFileError('the data is not an age file: it is empty');
  if (checked < AGE_V1_INTRO.byteLength) {
    throw new DamagedAgeFileError(`the age file is cut short: it ends after ${checked} bytes, inside its header`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
