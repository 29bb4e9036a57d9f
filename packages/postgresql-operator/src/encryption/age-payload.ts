import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * The payload of an age v1 file (age-encryption.org/v1, "Payload"), sealed and opened with Node's ChaCha20-Poly1305
 * (OpenSSL's). age-encryption does everything else of the format (keys, recipient stanzas, the header and its MAC:
 * age-encrypt.ts, age-decrypt.ts), but seals the payload with @noble/ciphers' pure JavaScript ChaCha20-Poly1305, which
 * took 7.8 CPU seconds per GiB here against OpenSSL's 1.1 (the library has no other cipher to offer): nearly all of
 * what encryption added to a backup. What is done here is the STREAM construction only, which the spec fixes to the
 * byte: the payload key is HKDF-SHA-256 of the file key with the 16-byte nonce that follows the header as salt and
 * "payload" as info; the plaintext is cut into chunks of 64 KiB, the last one possibly shorter (empty only when it is
 * the only one); chunk i is sealed with the 12-byte nonce of i as an 11-byte big-endian counter followed by a byte
 * that is 1 for the last chunk and 0 for the others. Every file encrypted here is checked against age-encryption's own
 * payload for the same key (age-encrypt.ts), and the tests check both ways against the reference `age` tool.
 */

/** Plaintext bytes in every chunk but the last. */
export const PAYLOAD_CHUNK_BYTES = 64 * 1024;
/** Poly1305's tag, after each chunk's ciphertext. */
export const TAG_BYTES = 16;
/** The random nonce between the header and the first chunk, from which the payload key is derived. */
export const PAYLOAD_NONCE_BYTES = 16;

/**
 * The key that seals the payload, from the file key and the payload nonce. A KeyObject, made once per file: given as
 * bytes, every chunk's cipher would import the key again (a fifth of the CPU of opening a chunk, profiled).
 */
export function payloadKey(fileKey: Uint8Array, payloadNonce: Uint8Array): KeyObject {
  return createSecretKey(new Uint8Array(hkdfSync('sha256', fileKey, payloadNonce, 'payload', 32)));
}

/**
 * The nonce of chunk `index`. The counter has 11 bytes; 6 of them reach 2^48 chunks of 64 KiB, 16 EiB, so the first
 * 5 stay zero.
 */
function chunkNonce(index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUIntBE(index, 5, 6);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/**
 * Chunk `index` of the payload, sealed: its ciphertext and its tag, as they follow each other in the file. Not joined:
 * Node's cipher hands out the ciphertext in a buffer of its own, and joining it to the tag took another 64 KiB buffer
 * per chunk; those buffers, not the cipher, drive major garbage collections, which in a process with a large heap (the
 * benchmark's, which hosts the test cluster's node) took as much CPU as the encryption itself.
 */
export function sealChunk(key: KeyObject, index: number, last: boolean, plaintext: Uint8Array): [Buffer, Buffer] {
  const cipher = createCipheriv('chacha20-poly1305', key, chunkNonce(index, last), { authTagLength: TAG_BYTES });
  const ciphertext = cipher.update(plaintext);
  cipher.final();
  return [ciphertext, cipher.getAuthTag()];
}

/**
 * The plaintext of chunk `index` (ciphertext and tag, as {@link sealChunk} makes it), authenticated: throws when it
 * does not authenticate as chunk `index` (as the last chunk, when `last`), and then returns none of it.
 */
export function openChunk(key: KeyObject, index: number, last: boolean, sealed: Uint8Array): Buffer {
  if (sealed.byteLength < TAG_BYTES) throw new Error(`chunk ${index} has ${sealed.byteLength} bytes, fewer than its ${TAG_BYTES}-byte tag`);
  const tagAt = sealed.byteLength - TAG_BYTES;
  const decipher = createDecipheriv('chacha20-poly1305', key, chunkNonce(index, last), { authTagLength: TAG_BYTES });
  decipher.setAuthTag(sealed.subarray(tagAt));
  const plaintext = decipher.update(sealed.subarray(0, tagAt));
  try {
    decipher.final();
  } catch (error) {
    throw new Error(`chunk ${index}${last ? ' (the last)' : ''} does not authenticate`, { cause: error });
  }
  return plaintext;
}
