// Streams a generated plaintext through encryptToRecipients and openAgeFile, back to back, measuring memory on the
// way: for the bounded-memory test and the encryption benchmark. Nothing is timed here.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openAgeFile } from '../src/encryption/age-decrypt.ts';
import { encryptToRecipients } from '../src/encryption/age-encrypt.ts';
import { AgeIdentity, parseAgeRecipients } from '../src/encryption/age-keys.ts';
import { newKeyPair } from './age-streams.ts';

const MiB = 1024 * 1024;

/** A full garbage collection, to measure what is still held rather than what has not been collected yet. */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** What this process holds: the JavaScript heap in use and the memory of live ArrayBuffers (Buffers' bytes). */
export function heldBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/**
 * What is still held once garbage is collected. One collection is not enough to read it: V8 sweeps freed ArrayBuffers
 * concurrently and runs finalizers later, so right after `gc()` `arrayBuffers` may still count buffers already dead
 * (the 8-21 MiB a single reading swung by). Two collections with a turn of the event loop between them settle it.
 */
export async function settledHeldBytes(): Promise<number> {
  collectGarbage();
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  return heldBytes();
}

/**
 * `bytes` of plaintext as `piece` repeated (the last one cut to fit), streamed as pg_dump's output is, each passed to
 * `seen` on its way.
 */
export function generatedPlaintext(bytes: number, piece: Uint8Array, seen: (part: Uint8Array) => void = () => undefined): AsyncIterable<Uint8Array> {
  function* parts(): Generator<Uint8Array, void, undefined> {
    for (let at = 0; at < bytes; at += piece.byteLength) {
      const part = piece.subarray(0, Math.min(piece.byteLength, bytes - at));
      seen(part);
      yield part;
    }
  }
  return Readable.from(parts(), { objectMode: true });
}

export interface RoundTripMemory {
  bytes: number;
  /** The plaintext that came out is the plaintext that went in (SHA-256 of both). */
  identical: boolean;
  /** Highest resident set size seen while streaming, above the one before it started: what a memory limit sees. */
  peakRssGrowth: number;
  /** Highest heap + ArrayBuffers still held once garbage is collected (settledHeldBytes), every 16 MiB, above the one before. */
  peakHeldGrowth: number;
}

/**
 * Encrypts `bytes` of plaintext (64 KiB pieces of random data) to two recipients and decrypts it with one of their
 * identities in one pipeline, so the two run as they would in a backup and its restore, reading a resident set size
 * at every 64 KiB chunk.
 */
export async function roundTripMemory(bytes: number): Promise<RoundTripMemory> {
  const a = await newKeyPair();
  const b = await newKeyPair();
  const identity = await AgeIdentity.parse(b.identity);
  const piece = randomBytes(64 * 1024);
  const sent = createHash('sha256');
  const heldBefore = await settledHeldBytes();
  const rssBefore = process.memoryUsage.rss();
  let peakRss = rssBefore;
  let peakHeld = heldBefore;
  const received = createHash('sha256');
  let out = 0;
  let nextSample = 16 * MiB;
  const ciphertext = encryptToRecipients(generatedPlaintext(bytes, piece, (part) => sent.update(part)), parseAgeRecipients([a.recipient, b.recipient]));
  for await (const chunk of await openAgeFile(ciphertext, identity)) {
    received.update(chunk);
    out += chunk.byteLength;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    if (out >= nextSample) {
      peakHeld = Math.max(peakHeld, await settledHeldBytes());
      nextSample += 16 * MiB;
    }
  }
  return {
    bytes: out,
    identical: out === bytes && sent.digest('hex') === received.digest('hex'),
    peakRssGrowth: peakRss - rssBefore,
    peakHeldGrowth: peakHeld - heldBefore,
  };
}
