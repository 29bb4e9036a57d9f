// npm run bench -- postgresql-encryption [--mib 256] [--rounds 5]: what age encryption (src/encryption/) costs a backup
// and a restore, as figures to set against the backup's own time. Each round streams the same bytes three ways and
// times each, alternating which goes first: a plain copy (the bytes hashed with SHA-256, as a backup does on the way
// to its store), the same with encryption to two recipients in between, and the decryption of those bytes' age file
// (read from a file) against a plain copy of that file. Throughput is wall-clock MiB/s; CPU seconds per GiB is this
// process's user + system time, which is what encryption adds to a backup Job on a machine with no core to spare.
// The same bytes also go through a backup's shape (run-backup.ts), with and without encryption: teed with the
// backup's decode lag, one branch written into a child's pipe as pg_restore's is, the other (with the plaintext digest
// an encrypted backup keeps) hashed as the store's is; what encryption adds there is what a backup Job pays.
// Then one encrypt-and-decrypt pipeline of the same size, reading the memory it holds (test/age-memory.ts).
// Prints figures, never judges them; the last line is one JSON object.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { DECODE_LAG_BYTES } from '../src/dump/run-backup.ts';
import { teeStream } from '../src/dump/tee.ts';
import { openAgeFile } from '../src/encryption/age-decrypt.ts';
import { encryptToRecipients } from '../src/encryption/age-encrypt.ts';
import { AgeIdentity, parseAgeRecipients } from '../src/encryption/age-keys.ts';
import { digesting, StreamDigest } from '../src/stores/digest.ts';
import { collectGarbage, generatedPlaintext, roundTripMemory } from '../test/age-memory.ts';
import { newKeyPair } from '../test/age-streams.ts';

const { values } = parseArgs({ options: { mib: { type: 'string', default: '256' }, rounds: { type: 'string', default: '5' } } });
const mib = Number(values.mib);
const rounds = Number(values.rounds);
if (!Number.isInteger(mib) || mib < 1) throw new Error(`--mib must be a positive integer, not ${values.mib}`);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, not ${values.rounds}`);
const bytes = mib * 1024 * 1024;

const a = await newKeyPair();
const b = await newKeyPair();
const recipients = parseAgeRecipients([a.recipient, b.recipient]);
const identity = await AgeIdentity.parse(b.identity);
// Random bytes, as a compressed dump is: 64 KiB pieces, the size pg_dump's stream comes in (pg-dump.ts).
const piece = randomBytes(64 * 1024);
const plaintext = (): AsyncIterable<Uint8Array> => generatedPlaintext(bytes, piece);

/** Hashes everything `source` yields, as the store does; returns how many bytes came. */
async function hashAll(source: AsyncIterable<Uint8Array>): Promise<number> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of source) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  hash.digest();
  return size;
}

/**
 * A backup's streams around the store, in this process: the plaintext teed as run-backup.ts tees pg_dump's output, one
 * branch written into `cat`'s pipe (pg_restore's place; its CPU is not this process's), the other hashed as the store
 * hashes what it takes, after `store` has made it what the store is given.
 */
async function backupShaped(store: (branch: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>): Promise<number> {
  const tee = teeStream(plaintext(), { maxLagBytes: DECODE_LAG_BYTES });
  const [toStore, toDecode] = tee.branches;
  const decoder = spawn('cat', [], { stdio: ['pipe', 'ignore', 'inherit'] });
  const [size] = await Promise.all([
    hashAll(store(toStore)),
    pipeline(toDecode, decoder.stdin).then(async () => once(decoder, 'close')),
  ]);
  await tee.settled;
  return size;
}

interface Measured {
  seconds: number;
  cpuSeconds: number;
}

async function measure(run: () => Promise<number>): Promise<Measured> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

const work = await mkdtemp(join(tmpdir(), 'age-bench-'));
try {
  const ageFile = join(work, 'data.age');
  await pipeline(encryptToRecipients(plaintext(), recipients), createWriteStream(ageFile));

  const runs = {
    copy: () => hashAll(plaintext()),
    encrypt: () => hashAll(encryptToRecipients(plaintext(), recipients)),
    copyFile: () => hashAll(createReadStream(ageFile, { highWaterMark: 64 * 1024 })),
    decrypt: async () => hashAll(await openAgeFile(createReadStream(ageFile, { highWaterMark: 64 * 1024 }), identity)),
    backup: () => backupShaped((branch) => branch),
    encryptedBackup: () => backupShaped((branch) => encryptToRecipients(digesting(branch, new StreamDigest()), recipients)),
  };
  type Name = keyof typeof runs;
  const results: Record<Name, Measured[]> = { copy: [], encrypt: [], copyFile: [], decrypt: [], backup: [], encryptedBackup: [] };
  for (let round = 0; round < rounds; round++) {
    const order: Name[] = round % 2 === 0 ? ['copy', 'encrypt', 'copyFile', 'decrypt', 'backup', 'encryptedBackup'] : ['encryptedBackup', 'backup', 'decrypt', 'copyFile', 'encrypt', 'copy'];
    for (const name of order) results[name].push(await measure(runs[name]));
    console.log(
      `round ${round + 1}/${rounds}: ` +
        order.map((name) => `${name} ${results[name].at(-1)?.seconds.toFixed(3)} s`).join(', '),
    );
  }

  const median = (list: number[]): number => {
    const sorted = [...list].sort((x, y) => x - y);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  };
  const gib = bytes / 2 ** 30;
  const summary = Object.fromEntries(
    (Object.keys(runs) as Name[]).map((name) => {
      const seconds = median(results[name].map((r) => r.seconds));
      const cpuSeconds = median(results[name].map((r) => r.cpuSeconds));
      return [name, { seconds, mibPerSecond: mib / seconds, cpuSecondsPerGiB: cpuSeconds / gib }];
    }),
  ) as Record<Name, { seconds: number; mibPerSecond: number; cpuSecondsPerGiB: number }>;
  const encryptAdds = (summary.encrypt.cpuSecondsPerGiB - summary.copy.cpuSecondsPerGiB) / 1024;
  const decryptAdds = (summary.decrypt.cpuSecondsPerGiB - summary.copyFile.cpuSecondsPerGiB) / 1024;
  const backupAdds = (summary.encryptedBackup.cpuSecondsPerGiB - summary.backup.cpuSecondsPerGiB) / 1024;

  const memory = await roundTripMemory(bytes);
  const MiB = 1024 * 1024;

  console.log(`\n${mib} MiB, ${rounds} rounds, medians (wall-clock MiB/s; CPU seconds of this process per GiB):`);
  for (const name of Object.keys(runs) as Name[]) {
    const s = summary[name];
    console.log(`  ${name.padEnd(15)} ${s.seconds.toFixed(3)} s  ${s.mibPerSecond.toFixed(0).padStart(5)} MiB/s  ${s.cpuSecondsPerGiB.toFixed(2)} CPU s/GiB`);
  }
  console.log(`  encryption adds ${(encryptAdds * 1000).toFixed(2)} ms of CPU per MiB of dump; decryption ${(decryptAdds * 1000).toFixed(2)} ms`);
  console.log(`  in a backup's shape (tee, digest), encryption adds ${(backupAdds * 1000).toFixed(2)} ms of CPU per MiB of dump`);
  console.log(
    `  memory, ${mib} MiB encrypted and decrypted back to back: resident set +${(memory.peakRssGrowth / MiB).toFixed(1)} MiB at its ` +
      `highest, +${(memory.peakHeldGrowth / MiB).toFixed(1)} MiB held after a full collection; plaintext identical: ${memory.identical}`,
  );
  console.log(
    JSON.stringify({
      mib,
      rounds,
      ...summary,
      encryptCpuMsPerMiB: encryptAdds * 1000,
      decryptCpuMsPerMiB: decryptAdds * 1000,
      backupEncryptCpuMsPerMiB: backupAdds * 1000,
      peakRssGrowthMiB: memory.peakRssGrowth / MiB,
      peakHeldGrowthMiB: memory.peakHeldGrowth / MiB,
      identical: memory.identical,
    }),
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
