import { Encrypter } from 'age-encryption';
import type { AgeRecipient } from './age-keys.ts';
import { IterableSource } from './iterable-source.ts';

/**
 * Encrypts a stream to age recipients, as it passes: the output is an age v1 file (binary, not armored) that
 * `age -d -i key.txt` decrypts with the identity of any one of `recipients`. age-encryption does the work: a random
 * file key wrapped once per recipient in the header, then the data in authenticated chunks of 64 KiB (ChaCha20-
 * Poly1305, the last chunk marked as last, so a file cut short or extended does not decrypt).
 *
 * Memory stays bounded whatever the size: the plaintext is read only as the ciphertext is consumed, one chunk at a
 * time, and at most one 64 KiB chunk is held being filled. The output comes in chunks of 64 KiB + 16 bytes, the
 * header first.
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
  const encrypter = new Encrypter();
  for (const recipient of recipients) encrypter.addRecipient(recipient);
  const source = new IterableSource(plaintext);
  try {
    const ciphertext = await encrypter.encrypt(source.stream);
    for await (const chunk of ciphertext) yield chunk;
  } finally {
    await source.close();
  }
}
