// Encrypted backups (spec.backup.encryption) against a real PostgreSQL 15 (a postgres:15 Pod on testkit's local node)
// with the machine's pg_dump and pg_restore: the backup encrypts the store's copy only, the manifest says to whom, any
// one recipient's identity restores it, and one that cannot decrypt it fails before (or, damaged part-way, during)
// pg_restore with a reason and nothing restored. The reference `age` tool (npm run provision) decrypts what the
// operator stored, and plain pg_restore restores that: no operator needed.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findProvisionedTool, TestCluster } from '@k8s-operators/testkit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseProblem } from '../src/controller/database-errors.ts';
import { restoreFailureVerdict } from '../src/controller/restore-verdict.ts';
import { AgeIdentity, parseAgeRecipients } from '../src/encryption/age-keys.ts';
import { runBackup } from '../src/dump/run-backup.ts';
import { forDatabase, withConnection, type ConnectionParameters } from '../src/postgres/connection.ts';
import { isDatabaseEmpty } from '../src/postgres/inspect.ts';
import { BackupNotDecryptableError, type IdentitySource } from '../src/restore/backup-decryption.ts';
import { restoreBackup } from '../src/restore/restore-backup.ts';
import { restoreLatestBackup } from '../src/restore/restore-latest.ts';
import { DirectoryBackupStore } from '../src/stores/directory-store.ts';
import { ENCRYPTED_MANIFEST_VERSION, serializeManifest, type BackupManifest } from '../src/stores/manifest.ts';
import type { BackupKey } from '../src/stores/store.ts';
import { newKeyPair, type KeyPair } from './age-streams.ts';
import { startPostgresPod } from './postgres-pod.ts';

const PASSWORD = 's3cret-Passw0rd';
const PG_BIN = '/usr/lib/postgresql/15/bin';
const run = promisify(execFile);

let cluster: TestCluster;
let server: ConnectionParameters;
let storeRoot: string;
let store: DirectoryBackupStore;
let old: KeyPair;
let current: KeyPair;
let stranger: KeyPair;

beforeAll(async () => {
  cluster = await TestCluster.start();
  server = await startPostgresPod(cluster, { name: 'db', user: 'app', password: PASSWORD, database: 'app' });
  storeRoot = await mkdtemp(join(tmpdir(), 'pg-encrypted-backups-'));
  store = new DirectoryBackupStore(storeRoot);
  [old, current, stranger] = await Promise.all([newKeyPair(), newKeyPair(), newKeyPair()]);
});
afterAll(async () => {
  await cluster.stop();
  await rm(storeRoot, { recursive: true, force: true });
});

const on = (database: string): ConnectionParameters => forDatabase(server, database);
const key = (postgresql: string, backup: string): BackupKey => ({ namespace: 'default', postgresql, backup });
const identityOf = (...pairs: KeyPair[]): IdentitySource => async () => AgeIdentity.parse(pairs.map((pair) => pair.identity).join('\n'));
const dumpFile = (k: BackupKey): string => join(storeRoot, k.namespace, k.postgresql, `${k.backup}.dump`);

async function query<R extends pg.QueryResultRow>(database: string, text: string): Promise<R[]> {
  return withConnection(on(database), async (client) => (await client.query<R>(text)).rows);
}

async function createEmptyDatabase(name: string): Promise<void> {
  await query('postgres', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await query('postgres', `CREATE DATABASE ${name}`);
}

/** A database with `rows` random-looking rows, so the dump spans many 64 KiB age chunks. */
async function createItems(database: string, rows: number): Promise<void> {
  await createEmptyDatabase(database);
  await query(database, `
    CREATE TABLE items (id int PRIMARY KEY, body text NOT NULL);
    INSERT INTO items SELECT i, md5(i::text) || md5((i * 7)::text) FROM generate_series(1, ${rows}) AS i;`);
}

async function fingerprint(database: string): Promise<{ rows: number; digest: string }> {
  const [row] = await query<{ rows: number; digest: string }>(database, "SELECT count(*)::int AS rows, md5(string_agg(id || ':' || body, ',' ORDER BY id)) AS digest FROM items");
  if (row === undefined) throw new Error('no fingerprint');
  return row;
}

function encryptedBackup(database: string, name: string, recipients: KeyPair[]): Promise<BackupManifest> {
  return runBackup({ store, key: key(database, name), trigger: 'Scheduled', connection: on(database), recipients: parseAgeRecipients(recipients.map((r) => r.recipient)) });
}

const empty = async (database: string) => (await withConnection(on(database), isDatabaseEmpty)).empty;

describe('an encrypted backup', () => {
  it('stores only ciphertext, names its recipients in the manifest, and restores with the identity of either recipient', async () => {
    await createItems('alpha', 20_000);
    const before = await fingerprint('alpha');
    const taken = await encryptedBackup('alpha', 'alpha-1', [old, current]);

    const stored = await readFile(dumpFile(taken.key));
    expect(stored.subarray(0, 22).toString()).toBe('age-encryption.org/v1\n');
    expect(stored.includes(Buffer.from('PGDMP'))).toBe(false);
    expect(taken).toMatchObject({
      manifestVersion: ENCRYPTED_MANIFEST_VERSION,
      size: stored.byteLength,
      sha256: createHash('sha256').update(stored).digest('hex'),
      encryption: { format: 'age', recipients: [old.recipient, current.recipient] },
    });
    expect(taken.encryption?.plaintextSize).toBeGreaterThan(64 * 1024);
    expect(await store.manifest(taken.key)).toEqual(taken);

    for (const holder of [old, current]) {
      await createEmptyDatabase('alpha');
      const result = await restoreLatestBackup({ store, namespace: 'default', postgresql: 'alpha', connection: on('alpha'), role: 'app', identity: identityOf(holder) });
      expect(result).toEqual({ outcome: 'Restored', backup: taken, skipped: [] });
      expect(await fingerprint('alpha')).toEqual(before);
    }
  });

  it('decrypted by the reference age tool and restored by plain pg_restore, with no operator', async () => {
    const ageDir = await findProvisionedTool('age');
    await createItems('bravo', 5_000);
    const before = await fingerprint('bravo');
    const taken = await encryptedBackup('bravo', 'bravo-1', [old, current]);
    const work = await mkdtemp(join(tmpdir(), 'age-restore-'));
    try {
      await writeFile(join(work, 'key.txt'), `# created by age-keygen\n${current.identity}\n`, { mode: 0o600 });
      await run(join(ageDir, 'age'), ['-d', '-i', join(work, 'key.txt'), '-o', join(work, 'bravo.dump'), dumpFile(taken.key)]);
      const plaintext = await readFile(join(work, 'bravo.dump'));
      expect({ size: plaintext.byteLength, sha256: createHash('sha256').update(plaintext).digest('hex') }).toEqual({
        size: taken.encryption?.plaintextSize,
        sha256: taken.encryption?.plaintextSha256,
      });
      await createEmptyDatabase('bravo_scratch');
      const { host, port, user, password } = on('bravo_scratch');
      await run(join(PG_BIN, 'pg_restore'), ['--no-owner', '--host', host, '--port', String(port), '--username', user, '--dbname', 'bravo_scratch', join(work, 'bravo.dump')], {
        env: { ...process.env, PGPASSWORD: password },
      });
      expect(await fingerprint('bravo_scratch')).toEqual(before);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('with an identity of none of its recipients fails before pg_restore, with the reason, its recipients and no key', async () => {
    await createItems('charlie', 1_000);
    const taken = await encryptedBackup('charlie', 'charlie-1', [old, current]);
    await createEmptyDatabase('charlie');

    const error = await restoreLatestBackup({ store, namespace: 'default', postgresql: 'charlie', connection: on('charlie'), role: 'app', identity: identityOf(stranger) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupNotDecryptableError);
    expect(error).toMatchObject({ reason: 'NoMatchingIdentity' });
    const { message } = error as Error;
    expect(message).toContain(`backup default/charlie/charlie-1 cannot be decrypted, nothing of it was restored: the identity given cannot decrypt this file: it was encrypted to ${old.recipient}, ${current.recipient}`);
    expect(message).toContain(`holds the key of ${stranger.recipient}`);
    for (const pair of [old, current, stranger]) expect(message).not.toContain(pair.identity);
    expect(await empty('charlie')).toBe(true);

    // What a new pod's Restored condition and Event say: the reason, never a key.
    const verdict = restoreFailureVerdict('charlie-0', databaseProblem(error, { secret: 'charlie-password', user: 'app' }));
    expect(verdict).toMatchObject({ serve: false, condition: { status: 'False', reason: 'NoMatchingIdentity' }, events: [{ type: 'Warning', reason: 'NoMatchingIdentity' }] });
    expect(verdict.condition.message).toContain(taken.encryption?.recipients[0] ?? 'no recipient');
    // The message shows what an identity looks like (AGE-SECRET-KEY-1...), never one.
    expect(JSON.stringify(verdict)).not.toMatch(/AGE-SECRET-KEY-1[0-9A-Z]/);
  });

  it('whose ciphertext was altered past its checksum fails part-way through pg_restore, which commits nothing', async () => {
    await createItems('delta', 20_000);
    const taken = await encryptedBackup('delta', 'delta-1', [current]);
    // One byte flipped three quarters in (a late age chunk), and the manifest's checksum made to match: only the age
    // authentication can catch it, after pg_restore has taken the chunks before it.
    const file = dumpFile(taken.key);
    const handle = await open(file, 'r+');
    try {
      const at = Math.floor((taken.size * 3) / 4);
      const byte = Buffer.alloc(1);
      await handle.read(byte, 0, 1, at);
      await handle.write(Buffer.from([(byte[0] ?? 0) ^ 0x01]), 0, 1, at);
    } finally {
      await handle.close();
    }
    const altered = await readFile(file);
    const tampered: BackupManifest = { ...taken, sha256: createHash('sha256').update(altered).digest('hex') };
    await writeFile(join(storeRoot, 'default', 'delta', 'delta-1.manifest.json'), serializeManifest(tampered));
    await createEmptyDatabase('delta');

    const error = await restoreBackup({ store, backup: tampered, connection: on('delta'), role: 'app', identity: identityOf(current) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupNotDecryptableError);
    expect(error).toMatchObject({ reason: 'DamagedAgeFile' });
    const decrypted = /does not authenticate after (\d+) bytes of plaintext/.exec((error as Error).message);
    // pg_restore had been given plaintext before the damage was found, and still committed none of it.
    expect(Number(decrypted?.[1])).toBeGreaterThan(0);
    expect(await empty('delta')).toBe(true);
    expect(databaseProblem(error, { secret: 'delta-password', user: 'app' }).reason).toBe('DamagedAgeFile');
  });

  it('cannot be restored without an identity, and says where to give one; a plain backup never asks for it', async () => {
    await createItems('echo', 100);
    const plain = await runBackup({ store, key: key('echo', 'echo-1'), trigger: 'Scheduled', connection: on('echo') });
    const encrypted = await encryptedBackup('echo', 'echo-2', [current]);
    await createEmptyDatabase('echo');

    const error = await restoreBackup({ store, backup: encrypted, connection: on('echo'), role: 'app' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      reason: 'IdentityUnavailable',
      message: `backup default/echo/echo-2 is encrypted (age, to ${current.recipient}) and no identity is given to decrypt it: set spec.backup.encryption.identitySecretRef to a Secret holding the identity of one of those recipients`,
    });
    expect(await empty('echo')).toBe(true);

    // Encryption added later: the older, plain backup restores as it is, and the identity is never read for it.
    const unreadable: IdentitySource = () => Promise.reject(new Error('the identity was read for a plain backup'));
    await restoreBackup({ store, backup: plain, connection: on('echo'), role: 'app', identity: unreadable });
    expect(await empty('echo')).toBe(false);
  });
});
