import { Decrypter, type Identity, type Stanza } from 'age-encryption';
import type { AgeIdentity } from './age-keys.ts';
import { IterableSource } from './iterable-source.ts';

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
 * chunk is held being authenticated.
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

/** Reads the header of the age file `ciphertext` and resolves to its plaintext; see above for what throws when. */
export async function openAgeFile(
  ciphertext: AsyncIterable<Uint8Array>,
  identity: AgeIdentity,
  options: OpenAgeFileOptions = {},
): Promise<AsyncIterableIterator<Uint8Array, void>> {
  const source = new IterableSource(checkIntro(ciphertext));
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

  let plaintext: ReadableStream<Uint8Array>;
  try {
    plaintext = await decrypter.decrypt(source.stream);
  } catch (error) {
    await source.close();
    if (source.failure !== undefined) throw source.failure.error;
    if (unmatched !== undefined) {
      throw new NoMatchingIdentityError(unmatched.map((stanza) => stanza.args[0] ?? '(empty)'), options.encryptedTo, identity.recipients);
    }
    throw new DamagedAgeFileError(`the age file's header is damaged: ${describe(error)}; nothing was decrypted`, { cause: error });
  }
  const chunks = payload(plaintext, source);
  // The header was read, so the ciphertext is open: a caller that drops the plaintext without reading it (its
  // pg_restore failed to start) still closes the ciphertext by calling return(), which an unstarted generator skips.
  const iterator: AsyncIterableIterator<Uint8Array, void> = {
    next: () => chunks.next(),
    return: async () => {
      await chunks.return(undefined);
      if (!plaintext.locked) await plaintext.cancel();
      await source.close();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

async function* payload(plaintext: ReadableStream<Uint8Array>, source: IterableSource): AsyncGenerator<Uint8Array, void, undefined> {
  let bytes = 0;
  try {
    for await (const chunk of plaintext) {
      bytes += chunk.byteLength;
      yield chunk;
    }
  } catch (error) {
    if (source.failure !== undefined) throw source.failure.error;
    throw new DamagedAgeFileError(
      `the age file does not authenticate after ${bytes} bytes of plaintext (${describe(error)}): it was cut short, ` +
        `extended or altered; none of it may be used`,
      { cause: error },
    );
  } finally {
    await source.close();
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
