// The operator's age encryption against the reference `age` tool (filippo.io/age, built from the Go module proxy by
// `npm run provision`), both ways: what the operator encrypts, `age -d` decrypts, and what `age -r` encrypts, the
// operator decrypts, with keys made by `age-keygen`. This is the promise to a person holding a backup and a key: no
// operator is needed to read it.
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findProvisionedTool } from '@k8s-operators/testkit';
import { DamagedAgeFileError, NoMatchingIdentityError, openAgeFile } from '../src/encryption/age-decrypt.ts';
import { encryptToRecipients } from '../src/encryption/age-encrypt.ts';
import { AgeIdentity, parseAgeRecipients } from '../src/encryption/age-keys.ts';
import { readAll } from './age-streams.ts';

interface Run {
  code: number;
  stdout: Buffer;
  stderr: string;
}

let ageDir = '';
let work = '';

function run(program: 'age' | 'age-keygen', args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ageDir, program), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code: code ?? -1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString() });
    });
  });
}

/** A key made by `age-keygen -o`: the key file's path and the recipient `age-keygen -y` prints for it. */
async function keygen(name: string): Promise<{ keyFile: string; recipient: string }> {
  const keyFile = join(work, `${name}.key`);
  const made = await run('age-keygen', ['-o', keyFile]);
  expect(made.code, made.stderr).toBe(0);
  const shown = await run('age-keygen', ['-y', keyFile]);
  expect(shown.code, shown.stderr).toBe(0);
  return { keyFile, recipient: shown.stdout.toString().trim() };
}

/** Writes `plaintext` to a file and encrypts it with the operator's code to `recipients`; returns the age file's path. */
async function encryptWithOperator(name: string, plaintext: Uint8Array, recipients: string[]): Promise<string> {
  const input = join(work, `${name}.plain`);
  const output = join(work, `${name}.age`);
  await writeFile(input, plaintext);
  await pipeline(encryptToRecipients(createReadStream(input), parseAgeRecipients(recipients)), createWriteStream(output));
  return output;
}

async function decryptWithOperator(ageFile: string, keyFile: string): Promise<Buffer> {
  return readAll(await openAgeFile(createReadStream(ageFile), await AgeIdentity.parse(await readFile(keyFile, 'utf8'))));
}

let alice: { keyFile: string; recipient: string };
let bob: { keyFile: string; recipient: string };
let mallory: { keyFile: string; recipient: string };

beforeAll(async () => {
  // Fails at once, naming `npm run provision -- age`, on a machine that has not built the tool.
  ageDir = await findProvisionedTool('age');
  work = await mkdtemp(join(tmpdir(), 'age-interop-'));
  alice = await keygen('alice');
  bob = await keygen('bob');
  mallory = await keygen('mallory');
});
afterAll(async () => {
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe('the reference age tool and the operator read each other', () => {
  test('the tool is the pinned release', async () => {
    const version = await run('age', ['--version']);
    expect(version.stdout.toString().trim()).toBe('v1.3.2');
  });

  test("an identity file written by age-keygen is read as such, answering for the recipient age-keygen -y prints", async () => {
    const identity = await AgeIdentity.parse(await readFile(alice.keyFile, 'utf8'));
    expect(identity.recipients).toEqual([alice.recipient]);
    expect(parseAgeRecipients([alice.recipient, bob.recipient])).toEqual([alice.recipient, bob.recipient]);
  });

  test.each([0, 1, 64 * 1024, 3 * 1024 * 1024 + 7])('what the operator encrypts to two recipients, `age -d -i` decrypts with either key (%i bytes)', async (size) => {
    const plaintext = randomBytes(size);
    const ageFile = await encryptWithOperator(`ours-${size}`, plaintext, [alice.recipient, bob.recipient]);
    for (const key of [alice, bob]) {
      const decrypted = await run('age', ['-d', '-i', key.keyFile, ageFile]);
      expect(decrypted.stderr).toBe('');
      expect(decrypted.code).toBe(0);
      expect(decrypted.stdout.equals(plaintext)).toBe(true);
    }
  });

  test.each([0, 1, 64 * 1024, 3 * 1024 * 1024 + 7])('what `age -r -r` encrypts, the operator decrypts with either key (%i bytes)', async (size) => {
    const plaintext = randomBytes(size);
    const input = join(work, `theirs-${size}.plain`);
    const ageFile = join(work, `theirs-${size}.age`);
    await writeFile(input, plaintext);
    const encrypted = await run('age', ['-r', alice.recipient, '-r', bob.recipient, '-o', ageFile, input]);
    expect(encrypted.code, encrypted.stderr).toBe(0);
    for (const key of [alice, bob]) expect((await decryptWithOperator(ageFile, key.keyFile)).equals(plaintext)).toBe(true);
  });

  test('a key that is not a recipient opens neither: age refuses the operator\'s file, the operator refuses age\'s, before any plaintext', async () => {
    const plaintext = randomBytes(100_000);
    const ours = await encryptWithOperator('for-alice', plaintext, [alice.recipient]);
    const refused = await run('age', ['-d', '-i', mallory.keyFile, ours]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('no identity matched any of the recipients');
    expect(refused.stdout.length).toBe(0);

    const theirs = join(work, 'theirs-for-alice.age');
    await writeFile(join(work, 'for-alice.plain'), plaintext);
    expect((await run('age', ['-r', alice.recipient, '-o', theirs, join(work, 'for-alice.plain')])).code).toBe(0);
    const error = await decryptWithOperator(theirs, mallory.keyFile).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(NoMatchingIdentityError);
    expect((error as Error).message).toContain(`the identity given holds the key of ${mallory.recipient}`);
  });

  test('a file cut short at a chunk boundary or altered fails in the operator as in age: neither ends as if whole', async () => {
    const plaintext = randomBytes(4 * 64 * 1024);
    const ageFile = await encryptWithOperator('to-damage', plaintext, [alice.recipient]);
    const whole = await readFile(ageFile);
    const payload = whole.indexOf('\n', whole.indexOf('\n--- ') + 1) + 1 + 16;

    const cut = join(work, 'cut.age');
    await writeFile(cut, whole);
    await truncate(cut, payload + 2 * (64 * 1024 + 16));
    const altered = join(work, 'altered.age');
    const changed = Buffer.from(whole);
    changed[payload + 100_000] = (changed[payload + 100_000] ?? 0) ^ 0x80;
    await writeFile(altered, changed);

    for (const damaged of [cut, altered]) {
      const theirs = await run('age', ['-d', '-i', alice.keyFile, damaged]);
      expect(theirs.code).not.toBe(0);
      expect(theirs.stderr).toMatch(/failed to decrypt and authenticate|failed to read|unexpected EOF/);
      const ours = await decryptWithOperator(damaged, alice.keyFile).then(() => undefined, (e: unknown) => e);
      expect(ours).toBeInstanceOf(DamagedAgeFileError);
    }
  });
});
