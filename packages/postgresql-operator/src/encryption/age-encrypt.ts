import type { KeyObject } from 'node:crypto';
import { Encrypter } from 'age-encryption';
import type { AgeRecipient } from './age-keys.ts';
import { PAYLOAD_CHUNK_BYTES, PAYLOAD_NONCE_BYTES, payloadKey, sealChunk, TAG_BYTES } from './age-payload.ts';

/**
 * Encrypts a stream to age recipients, as it passes: the output is an age v1 file (binary, not armored) that
 * `age -d -i key.txt` decrypts with the identity of any one of `recipients`. age-encryption makes the header (a random
 * file key wrapped once per recipient, and the header's MAC); the data follows in authenticated chunks of 64 KiB
 * (ChaCha20-Poly1305, the last chunk marked as last, so a file cut short or extended does not decrypt), sealed by
 * age-payload.ts with Node's cipher.
 *
 * Memory stays bounded whatever the size: the plaintext is read only as the ciphertext is consumed, and at most one
 * 64 KiB chunk is held being filled, besides the piece of plaintext being cut into chunks. The output comes in pieces:
 * the header (with the payload nonce) first, then each chunk's ciphertext (64 KiB but for the last) and its 16-byte
 * tag, apart (see sealChunk).
 *
 * An error of `plaintext` (pg_dump failing) comes out of the output as that same error, after the ciphertext of what
 * was read before it, and never as an end: the output then is no age file, so a consumer that keeps data only on a
 * clean end (every BackupStore) never keeps it. Stopping the output early, or its failing, ends `plaintext` (kills
 * pg_dump) before the output's iteration settles.
 */
export async function* encryptToRecipients(
  plaintext: AsyncIterable<Uint8Array>,
  recipients: readonly AgeRecipient[],
): AsyncGenerator<Uint8Array, void, undefined> {
  if (recipients.length === 0) throw new Error('encryptToRecipients: no recipients (parseAgeRecipients never returns none)');
  const source = plaintext[Symbol.asyncIterator]();
  // The source's own end or error needs no closing; anything else (a stop, a failure here) closes it.
  let sourceSettled = false;
  try {
    const { header, key } = await ageHeader(recipients);
    yield header;
    const chunk = Buffer.allocUnsafe(PAYLOAD_CHUNK_BYTES);
    let filled = 0;
    let index = 0;
    for (;;) {
      let read: IteratorResult<Uint8Array>;
      try {
        read = await source.next();
      } catch (error) {
        sourceSettled = true;
        throw error;
      }
      if (read.done === true) {
        sourceSettled = true;
        break;
      }
      let piece = read.value;
      while (piece.byteLength > 0) {
        // A full chunk is sealed only once more plaintext has come: only the end says which chunk is the last.
        if (filled === PAYLOAD_CHUNK_BYTES) {
          yield* sealChunk(key, index++, false, chunk);
          filled = 0;
        }
        const taken = Math.min(PAYLOAD_CHUNK_BYTES - filled, piece.byteLength);
        chunk.set(piece.subarray(0, taken), filled);
        filled += taken;
        piece = piece.subarray(taken);
      }
    }
    yield* sealChunk(key, index, true, chunk.subarray(0, filled));
  } finally {
    if (!sourceSettled) await source.return?.();
  }
}

/**
 * A new file's header, from age-encryption, with the key to seal its payload. The library hands out no file key, so
 * it is taken from the one place the library gives it away, a recipient: this one wraps nothing (adds no stanza) and
 * only notes the key. The header is what the library writes for an empty file, less that file's payload: its one
 * chunk, empty and last, which is sealed here again with the key derived here, and must come out byte for byte the
 * same. Any difference between the library's payload and this module's would show there, and fail the backup before
 * anything is written, rather than leave a file no one can decrypt.
 */
async function ageHeader(recipients: readonly AgeRecipient[]): Promise<{ header: Uint8Array; key: KeyObject }> {
  const encrypter = new Encrypter();
  for (const recipient of recipients) encrypter.addRecipient(recipient);
  const drawn: { fileKey?: Uint8Array } = {};
  encrypter.addRecipient({
    wrapFileKey: (fileKey) => {
      drawn.fileKey = fileKey;
      return [];
    },
  });
  const emptyFile = await encrypter.encrypt(new Uint8Array(0));
  const payloadAt = emptyFile.byteLength - TAG_BYTES;
  const key = drawn.fileKey === undefined ? undefined : payloadKey(drawn.fileKey, emptyFile.subarray(payloadAt - PAYLOAD_NONCE_BYTES, payloadAt));
  if (key === undefined || !Buffer.concat(sealChunk(key, 0, true, new Uint8Array(0))).equals(emptyFile.subarray(payloadAt))) {
    throw new Error(
      `age-encryption ${key === undefined ? 'did not hand its file key to a recipient' : 'sealed an empty payload differently from age-payload.ts'}: ` +
        'this version of the library cannot be used for encrypted backups (nothing was written)',
    );
  }
  return { header: emptyFile.subarray(0, payloadAt), key };
}
