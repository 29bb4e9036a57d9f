import { randomBytes } from 'node:crypto';
import { Decrypter, Encrypter } from 'age-encryption';
import { describe, expect, test } from 'vitest';
import { newKeyPair, readAll, RecordingSource } from '../../test/age-streams.ts';
import { DamagedAgeFileError, NoMatchingIdentityError, NotAnAgeFileError, openAgeFile } from './age-decrypt.ts';
import { encryptToRecipients } from './age-encrypt.ts';
import { AgeIdentity, parseAgeRecipients } from './age-keys.ts';

const KiB = 1024;
/** A payload chunk of age's STREAM: 64 KiB of plaintext and a 16-byte tag. */
const CHUNK = 64 * KiB + 16;

async function encrypt(plaintext: Uint8Array, recipients: string[], pieceBytes = 10 * KiB): Promise<Buffer> {
  return readAll(encryptToRecipients(new RecordingSource(plaintext, pieceBytes), parseAgeRecipients(recipients)));
}

async function decrypt(ciphertext: Uint8Array, identity: string, pieceBytes = 10 * KiB): Promise<Buffer> {
  return readAll(await openAgeFile(new RecordingSource(ciphertext, pieceBytes), await AgeIdentity.parse(identity)));
}

/** Where the payload starts: after the header's MAC line and the 16-byte nonce. */
function payloadStart(file: Buffer): number {
  const mac = file.indexOf('\n--- ');
  return file.indexOf('\n', mac + 1) + 1 + 16;
}

/** The error `run` rejects or throws with, or undefined; with how many bytes of plaintext came out before it. */
async function failureOf(run: () => Promise<AsyncIterable<Uint8Array>>): Promise<{ error: unknown; plaintextBytes: number }> {
  let plaintextBytes = 0;
  try {
    for await (const chunk of await run()) plaintextBytes += chunk.byteLength;
    return { error: undefined, plaintextBytes };
  } catch (error) {
    return { error, plaintextBytes };
  }
}

describe('encryptToRecipients and openAgeFile', () => {
  test('a stream encrypted to several recipients decrypts with the identity of each, byte for byte, whatever its size', async () => {
    const a = await newKeyPair();
    const b = await newKeyPair();
    for (const size of [0, 1, 64 * KiB, 64 * KiB + 1, 200 * KiB + 5]) {
      const plaintext = randomBytes(size);
      const ciphertext = await encrypt(plaintext, [a.recipient, b.recipient]);
      expect(ciphertext.subarray(0, 22).toString()).toBe('age-encryption.org/v1\n');
      expect(ciphertext.toString('latin1').match(/^-> X25519 /gm)).toHaveLength(2);
      expect(await decrypt(ciphertext, a.identity)).toEqual(plaintext);
      expect(await decrypt(ciphertext, b.identity, 7)).toEqual(plaintext);
    }
  });

  test("the payload is age-encryption's own, both ways: its files decrypt here, and it decrypts the files made here", async () => {
    const { recipient, identity } = await newKeyPair();
    for (const size of [0, 1, 64 * KiB - 1, 64 * KiB, 64 * KiB + 1, 2 * 64 * KiB, 200 * KiB + 5]) {
      const plaintext = randomBytes(size);
      const encrypter = new Encrypter();
      encrypter.addRecipient(recipient);
      expect(await decrypt(await encrypter.encrypt(plaintext), identity), `${size} bytes`).toEqual(plaintext);
      const decrypter = new Decrypter();
      decrypter.addIdentity(identity);
      expect(Buffer.from(await decrypter.decrypt(await encrypt(plaintext, [recipient]))), `${size} bytes`).toEqual(plaintext);
    }
  });

  test("ciphertext comes out as the header, then each chunk's 64 KiB of ciphertext and 16-byte tag, as the plaintext is read", async () => {
    const { recipient } = await newKeyPair();
    const source = new RecordingSource(randomBytes(1024 * KiB + 5), 64 * KiB);
    const output = encryptToRecipients(source, parseAgeRecipients([recipient]));
    const sizes: number[] = [];
    for await (const chunk of output) {
      sizes.push(chunk.byteLength);
      // Never more than a few chunks ahead of what came out: the plaintext is pulled, not drained.
      expect(source.bytesRead).toBeLessThanOrEqual((sizes.length / 2 + 3) * 64 * KiB);
    }
    expect(sizes.slice(1)).toEqual([...Array.from({ length: 16 }, () => [64 * KiB, 16]).flat(), 5, 16]);
    expect(source.state).toBe('ended');
  });

  test('an identity that fits none of the recipients is refused before any plaintext, naming whom the file was for and whom the identity is', async () => {
    const a = await newKeyPair();
    const b = await newKeyPair();
    const other = await newKeyPair();
    const ciphertext = await encrypt(randomBytes(1024 * KiB), [a.recipient, b.recipient]);
    const source = new RecordingSource(ciphertext, 64 * KiB);
    const error = await openAgeFile(source, await AgeIdentity.parse(other.identity), { encryptedTo: [a.recipient, b.recipient] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NoMatchingIdentityError);
    expect(error).toMatchObject({ reason: 'NoMatchingIdentity', fileStanzas: ['X25519', 'X25519'], identityRecipients: [other.recipient] });
    expect((error as Error).message).toBe(
      `the identity given cannot decrypt this file: it was encrypted to ${a.recipient}, ${b.recipient} (2 recipient ` +
        `stanza(s) in its header: X25519, X25519), and the identity given holds the key of ${other.recipient}. Give the ` +
        'identity (AGE-SECRET-KEY-1...) of a recipient it was encrypted to.',
    );
    expect((error as Error).message).not.toContain(other.identity.slice(16, 40));
    // The header was read, and at most what the streams take ahead of it; then the ciphertext was closed.
    expect(source.bytesRead).toBeLessThanOrEqual(256 * KiB);
    expect(source.state).toBe('closed');
  });

  test('without the recipients from a manifest, the refusal says the file does not name them', async () => {
    const a = await newKeyPair();
    const other = await newKeyPair();
    const ciphertext = await encrypt(randomBytes(10), [a.recipient]);
    const refused = await openAgeFile(new RecordingSource(ciphertext, 64 * KiB), await AgeIdentity.parse(other.identity)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(refused?.message).toContain(
      'it was encrypted to other recipients (1 recipient stanza(s) in its header: X25519; an age file does not name its recipients\' keys)',
    );
  });

  test('data that is not an age file is refused before any plaintext: an unencrypted dump, nothing at all', async () => {
    const { identity } = await newKeyPair();
    for (const data of [Buffer.from('PGDMP\x01\x0f\x00'), Buffer.alloc(0)]) {
      const source = new RecordingSource(data, 64 * KiB);
      const { error, plaintextBytes } = await failureOf(async () => openAgeFile(source, await AgeIdentity.parse(identity)));
      expect(error).toBeInstanceOf(NotAnAgeFileError);
      expect(error).toMatchObject({ reason: 'NotAnAgeFile' });
      expect(plaintextBytes).toBe(0);
    }
  });

  describe('a damaged file fails with DamagedAgeFileError, never ending as if whole', () => {
    const plaintext = randomBytes(3 * 64 * KiB + 100);
    const damaged = async (
      change: (file: Buffer) => Buffer,
    ): Promise<{ error: unknown; plaintextBytes: number }> => {
      const { recipient, identity } = await newKeyPair();
      const file = change(await encrypt(plaintext, [recipient]));
      return failureOf(async () => openAgeFile(new RecordingSource(file, 10 * KiB), await AgeIdentity.parse(identity)));
    };

    test.each<[string, (file: Buffer) => Buffer]>([
      // At a chunk boundary every chunk left authenticates on its own; only the missing last-chunk mark tells.
      ['cut at a chunk boundary', (file) => file.subarray(0, payloadStart(file) + 2 * CHUNK)],
      ['cut inside a chunk', (file) => file.subarray(0, payloadStart(file) + CHUNK + 1000)],
      ['cut before its last byte', (file) => file.subarray(0, file.length - 1)],
      ['cut right after its header', (file) => file.subarray(0, payloadStart(file))],
      ['one byte of the payload changed', (file) => flip(file, payloadStart(file) + CHUNK + 5)],
      ['one byte of the last chunk changed', (file) => flip(file, file.length - 3)],
      ['bytes added after its end', (file) => Buffer.concat([file, Buffer.from('more')])],
    ])('%s: the plaintext stops short of the whole and the stream throws', async (_what, change) => {
      const { error, plaintextBytes } = await damaged(change);
      expect(error).toBeInstanceOf(DamagedAgeFileError);
      expect(error).toMatchObject({ reason: 'DamagedAgeFile' });
      expect((error as Error).message).toMatch(/^the age file does not authenticate after \d+ bytes of plaintext \(.*\): it was cut short, extended or altered; none of it may be used$/);
      expect(plaintextBytes).toBeLessThan(plaintext.length);
    });

    test.each<[string, (file: Buffer) => Buffer]>([
      ['its header MAC changed', (file) => flip(file, file.indexOf('\n--- ') + 6)],
      ['cut inside its header', (file) => file.subarray(0, 40)],
      ['cut inside its version line', (file) => file.subarray(0, 10)],
    ])('%s: refused before any plaintext', async (_what, change) => {
      const { error, plaintextBytes } = await damaged(change);
      expect(error).toBeInstanceOf(DamagedAgeFileError);
      expect(plaintextBytes).toBe(0);
    });
  });

  test('a header with no end is refused after its first MiB, not read to the end of the data', async () => {
    const { identity } = await newKeyPair();
    const source = new RecordingSource(Buffer.concat([Buffer.from('age-encryption.org/v1\n-> X25519 '), Buffer.alloc(8 * 1024 * KiB, 'A')]), 64 * KiB);
    const { error, plaintextBytes } = await failureOf(async () => openAgeFile(source, await AgeIdentity.parse(identity)));
    expect(error).toBeInstanceOf(DamagedAgeFileError);
    expect((error as Error).message).toBe(
      "the age file's header is damaged: it has no end (its MAC line) in its first 1048576 bytes; nothing was decrypted",
    );
    expect(plaintextBytes).toBe(0);
    expect(source.bytesRead).toBeLessThanOrEqual(1024 * KiB + 64 * KiB);
    expect(source.state).toBe('closed');
  });

  test("an error of the plaintext's source comes out of the ciphertext as that same error, not as an end", async () => {
    const { recipient } = await newKeyPair();
    const failure = new Error('pg_dump: error: connection to server lost');
    const source = new RecordingSource(randomBytes(512 * KiB), 64 * KiB, { bytes: 256 * KiB, error: failure });
    await expect(readAll(encryptToRecipients(source, parseAgeRecipients([recipient])))).rejects.toBe(failure);
    expect(source.state).toBe('failed');
  });

  test("an error of the ciphertext's source comes out of the plaintext as that same error, not as a damaged file", async () => {
    const { recipient, identity } = await newKeyPair();
    const ciphertext = await encrypt(randomBytes(512 * KiB), [recipient]);
    const failure = new Error('the store stopped answering');
    const source = new RecordingSource(ciphertext, 64 * KiB, { bytes: 256 * KiB, error: failure });
    const { error } = await failureOf(async () => openAgeFile(source, await AgeIdentity.parse(identity)));
    expect(error).toBe(failure);
  });

  test('a consumer that stops early closes the source before its loop ends, when encrypting and when decrypting', async () => {
    const { recipient, identity } = await newKeyPair();
    const plaintextSource = new RecordingSource(randomBytes(1024 * KiB), 64 * KiB);
    // The header comes out before any plaintext is read; the first chunk after it is the first read.
    for await (const chunk of encryptToRecipients(plaintextSource, parseAgeRecipients([recipient]))) {
      if (chunk.byteLength < 64 * KiB) continue;
      break;
    }
    expect(plaintextSource.state).toBe('closed');
    expect(plaintextSource.bytesRead).toBeLessThan(1024 * KiB);

    const ciphertextSource = new RecordingSource(await encrypt(randomBytes(1024 * KiB), [recipient]), 64 * KiB);
    for await (const chunk of await openAgeFile(ciphertextSource, await AgeIdentity.parse(identity))) {
      expect(chunk.byteLength).toBe(64 * KiB);
      break;
    }
    expect(ciphertextSource.state).toBe('closed');
    expect(ciphertextSource.bytesRead).toBeLessThan(1024 * KiB);
  });

  test('a plaintext dropped without being read still closes its ciphertext when returned', async () => {
    const { recipient, identity } = await newKeyPair();
    const source = new RecordingSource(await encrypt(randomBytes(1024 * KiB), [recipient]), 64 * KiB);
    const plaintext = await openAgeFile(source, await AgeIdentity.parse(identity));
    await plaintext.return?.();
    expect(source.state).toBe('closed');
  });
});

function flip(file: Buffer, at: number): Buffer {
  const copy = Buffer.from(file);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return copy;
}
