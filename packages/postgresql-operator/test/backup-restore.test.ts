import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, open, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { TestCluster, waitFor, isProcessRunning } from '@k8s-operators/testkit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryBackupStore } from '../src/stores/directory-store.ts';
import { BackupFailedError, DECODE_LAG_BYTES, runBackup } from '../src/dump/run-backup.ts';
import type { BackupKey, BackupStore } from '../src/stores/store.ts';
import { forDatabase, withConnection, type ConnectionParameters } from '../src/postgres/connection.ts';
import { isDatabaseEmpty } from '../src/postgres/inspect.ts';
import { PgToolNotFoundError, type DiscoverOptions } from '../src/postgres/tools-version.ts';
import { BackupCorruptedError, DatabaseNotEmptyError, DumpNewerThanServerError, RestoreFailedError, restoreBackup } from '../src/restore/restore-backup.ts';
import { restoreLatestBackup } from '../src/restore/restore-latest.ts';
import type { KubeClient } from '@k8s-operators/controller-core';
import { createLogger } from '@k8s-operators/controller-core/log';
import { BACKUP_JOB_FILES } from '../src/backup-job/backup-job-contract.ts';
import { runBackupJob } from '../src/backup-job/run-backup-job.ts';
import { jobOutcome } from '../src/controller/backup-jobs.ts';
import { databaseProblem, RETRY_CANNOT_FIX } from '../src/controller/database-errors.ts';
import { restoreFailureVerdict } from '../src/controller/restore-verdict.ts';
import { BACKUP_JOB_CONTAINER } from '../src/desired/desired-backup-job.ts';
import { failedStatus } from '../src/desired/desired-backup-status.ts';
import { backupFixture } from './postgresql-fixture.ts';
import { startPostgresPod } from './postgres-pod.ts';

// Backups and restores against a real PostgreSQL 15 (a postgres:15 Pod on testkit's local node) with the machine's
// real pg_dump and pg_restore. Each test works on databases of its own on that one server.

const PASSWORD = 's3cret-Passw0rd';
const PG_BIN = '/usr/lib/postgresql/15/bin';

let cluster: TestCluster;
let server: ConnectionParameters;
let storeRoot: string;
let store: DirectoryBackupStore;
let toolsRoot: string;

beforeAll(async () => {
  cluster = await TestCluster.start();
  server = await startPostgresPod(cluster, { name: 'db', user: 'app', password: PASSWORD, database: 'app' });
  storeRoot = await mkdtemp(join(tmpdir(), 'pg-backups-'));
  store = new DirectoryBackupStore(storeRoot);
  toolsRoot = await mkdtemp(join(tmpdir(), 'pg-tools-'));
});
afterAll(async () => {
  await cluster.stop();
  await rm(storeRoot, { recursive: true, force: true });
  await rm(toolsRoot, { recursive: true, force: true });
});

const on = (database: string): ConnectionParameters => forDatabase(server, database);
const key = (postgresql: string, backup: string): BackupKey => ({ namespace: 'default', postgresql, backup });

async function query<R extends pg.QueryResultRow>(database: string, text: string, values?: unknown[]): Promise<R[]> {
  return withConnection(on(database), async (client) => (await client.query<R>(text, values)).rows);
}

async function createEmptyDatabase(name: string): Promise<void> {
  await query('postgres', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await query('postgres', `CREATE DATABASE ${name}`);
}

/** What a user would compare: row count and a digest of every row. */
async function fingerprint(database: string, table = 'items'): Promise<{ rows: number; digest: string }> {
  const [row] = await query<{ rows: number; digest: string }>(
    database,
    `SELECT count(*)::int AS rows, md5(string_agg(id || ':' || body, ',' ORDER BY id)) AS digest FROM ${table}`,
  );
  if (row === undefined) throw new Error('no fingerprint');
  return row;
}

function backup(database: string, name: string, options: { store?: BackupStore; tools?: DiscoverOptions } = {}) {
  const { store: storeToUse = store, tools } = options;
  return runBackup({ store: storeToUse, key: key(database, name), trigger: 'Scheduled', connection: on(database), tools });
}

async function filesIn(postgresql: string): Promise<string[]> {
  return (await readdir(join(storeRoot, 'default', postgresql)).catch(() => [])).sort();
}

async function createItems(database: string, rows: number): Promise<void> {
  await createEmptyDatabase(database);
  // Random-looking rows, so a large table's compressed dump is far larger than every pipe and buffer in between.
  await query(database, `
    CREATE TABLE items (id int PRIMARY KEY, body text NOT NULL);
    INSERT INTO items SELECT i, md5(i::text) || md5((i * 7)::text) FROM generate_series(1, ${rows}) AS i;`);
}

/** A store whose write passes the dump through `transform` on its way in. */
function storeWithWrite(transform: (data: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>): BackupStore {
  return storeWith({ write: (k, data, options) => store.write(k, transform(data), options) });
}

function storeWith(overrides: Partial<BackupStore>): BackupStore {
  return {
    write: (k, data, options) => store.write(k, data, options),
    finalize: (m) => store.finalize(m),
    list: (s) => store.list(s),
    manifest: (k) => store.manifest(k),
    read: (k, options) => store.read(k, options),
    digest: (k, options) => store.digest(k, options),
    verifyChecksum: (k, options) => store.verifyChecksum(k, options),
    delete: (k) => store.delete(k),
    removeIncomplete: (s) => store.removeIncomplete(s),
    ...overrides,
  };
}

/**
 * The machine's pg_dump and pg_restore behind wrappers that log the process id of every run, for runBackup's `tools`:
 * a test can then show that both ran and that neither is left running. `dumpCommand` and `restoreCommand` replace
 * pg_dump's and pg_restore's command lines with stand-ins that misbehave or look around first.
 */
async function loggedTools(
  name: string,
  dumpCommand = `exec ${PG_BIN}/pg_dump "$@"`,
  restoreCommand = `exec ${PG_BIN}/pg_restore "$@"`,
) {
  const directory = join(toolsRoot, name);
  const bin = join(directory, '15', 'bin');
  const log = join(directory, 'pids');
  await mkdir(bin, { recursive: true });
  const versions = join(directory, 'version-lookups');
  const wrapper = (tool: string, command: string): string =>
    `#!/bin/sh\n[ "$1" = --version ] && { echo ${tool} >> ${versions}; exec ${PG_BIN}/${tool} --version; }\necho $$ >> ${log}\n${command}\n`;
  await writeFile(join(bin, 'pg_dump'), wrapper('pg_dump', dumpCommand), { mode: 0o755 });
  await writeFile(join(bin, 'pg_restore'), wrapper('pg_restore', restoreCommand), { mode: 0o755 });
  return {
    tools: { libDirectory: directory, path: '' },
    /** How many pg_dump and pg_restore runs started, and the ids of those still running. */
    async processes(): Promise<{ started: number; running: number[] }> {
      const pids = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '').map(Number);
      return { started: pids.length, running: pids.filter(isProcessRunning) };
    },
    /** How many times a tool was asked for its version: runBackup's lookup of pg_dump and pg_restore. */
    async versionLookups(): Promise<number> {
      return (await readFile(versions, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '').length;
    },
  };
}

async function pgDumpSessions(database: string): Promise<number> {
  return (await query('postgres', "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'pg_dump'", [database])).length;
}

describe('isDatabaseEmpty', () => {
  it('calls a new database empty, and names what makes one not empty', async () => {
    await createEmptyDatabase('inspect');
    const inspect = (): Promise<{ empty: boolean; found: string[] }> => withConnection(on('inspect'), isDatabaseEmpty);
    expect(await inspect()).toEqual({ empty: true, found: [] });
    // Another session's temporary table is not data of this database.
    await withConnection(on('inspect'), async (client) => {
      await client.query('CREATE TEMP TABLE scratch (x int)');
      expect(await inspect()).toEqual({ empty: true, found: [] });
    });
    await query('inspect', "CREATE FUNCTION public.answer() RETURNS int LANGUAGE sql AS 'SELECT 42'");
    expect(await inspect()).toEqual({ empty: false, found: ['function public.answer'] });
    await query('inspect', "CREATE SCHEMA billing; CREATE TYPE billing.state AS ENUM ('open'); CREATE TABLE billing.invoices (id int)");
    expect((await inspect()).found).toEqual([
      'schema billing',
      'table billing.invoices',
      'function public.answer',
      'type billing.state',
    ]);
  });
});

describe('backup', () => {
  it('dumps into the store while pg_restore decodes it, reads the checksum back, then publishes the manifest', async () => {
    await createEmptyDatabase('alpha');
    await query('alpha', `
      CREATE TABLE items (id serial PRIMARY KEY, body text NOT NULL);
      INSERT INTO items (body) SELECT md5(i::text) FROM generate_series(1, 5000) AS i;
      CREATE VIEW recent_items AS SELECT * FROM items WHERE id > 4990;`);
    const logged = await loggedTools('alpha');
    const started = Date.now();
    const manifest = await backup('alpha', 'alpha-1', { tools: logged.tools });

    const file = await readFile(join(storeRoot, 'default', 'alpha', 'alpha-1.dump'));
    expect(manifest).toMatchObject({
      key: key('alpha', 'alpha-1'),
      database: 'alpha',
      trigger: 'Scheduled',
      format: 'custom',
      serverVersion: expect.stringMatching(/^15\.\d+/) as string,
      serverVersionNum: expect.any(Number) as number,
      pgDumpVersion: expect.stringMatching(/^15\.\d+$/) as string,
      size: file.length,
      sha256: createHash('sha256').update(file).digest('hex'),
    });
    expect(file.subarray(0, 5).toString()).toBe('PGDMP'); // pg_dump's custom format
    for (const time of [manifest.startedAt, manifest.finishedAt, manifest.verifiedAt]) {
      expect(Date.parse(time)).toBeGreaterThanOrEqual(started - 1000);
    }
    expect(Date.parse(manifest.verifiedAt)).toBeGreaterThanOrEqual(Date.parse(manifest.finishedAt));
    expect(await filesIn('alpha')).toEqual(['alpha-1.dump', 'alpha-1.manifest.json']);
    expect((await store.list({ namespace: 'default', postgresql: 'alpha' })).backups).toEqual([manifest]);
    expect(await store.verifyChecksum(manifest.key)).toEqual({ ok: true, size: manifest.size, sha256: manifest.sha256 });
    expect(await logged.processes()).toEqual({ started: 2, running: [] }); // one pg_dump, one pg_restore, both gone
  });

  it('runs pg_dump under stdbuf, writing 64 KiB at a time instead of 4 KiB', async () => {
    await createEmptyDatabase('papa');
    const seen = join(toolsRoot, 'papa-stdout-buffer');
    // stdbuf passes the buffer size to the program it runs in _STDBUF_O; the wrapper is what pg_dump's process was.
    const logged = await loggedTools('papa', `echo "$_STDBUF_O" > ${seen}; exec ${PG_BIN}/pg_dump "$@"`);
    await backup('papa', 'papa-1', { tools: logged.tools });
    expect((await readFile(seen, 'utf8')).trim()).toBe(String(64 * 1024));
  });

  it('lets pg_restore, at the lowest priority, fall behind the store without holding up pg_dump', async () => {
    await createItems('quebec', 300_000);
    const ahead = join(toolsRoot, 'quebec-store-ahead');
    const seen = join(toolsRoot, 'quebec-restore-saw');
    // pg_restore reads nothing until the store has taken 4 MiB of the dump (or 10 s have passed), then records its
    // niceness (field 19 of /proc/<pid>/stat) and whether it waited for the store or gave up.
    const logged = await loggedTools(
      'quebec',
      undefined,
      `i=0; while [ ! -e ${ahead} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done\n` +
        `echo "$(cut -d' ' -f19 /proc/$$/stat) $([ -e ${ahead} ] && echo store-ahead || echo gave-up)" > ${seen}\n` +
        `exec ${PG_BIN}/pg_restore "$@"`,
    );
    let taken = 0;
    const marking = storeWithWrite(async function* (data) {
      for await (const chunk of data) {
        taken += chunk.byteLength;
        if (taken >= 4 * 1024 * 1024) await writeFile(ahead, '', { flag: 'a' });
        yield chunk;
      }
    });
    const manifest = await backup('quebec', 'quebec-1', { store: marking, tools: logged.tools });
    expect(manifest.size).toBeGreaterThan(4 * 1024 * 1024);
    expect((await readFile(seen, 'utf8')).trim()).toBe('19 store-ahead');
    expect(await logged.processes()).toEqual({ started: 2, running: [] });
  });

  it('a truncated dump fails the full decode, is deleted and is never offered for restore', async () => {
    await createEmptyDatabase('bravo');
    await query('bravo', `
      CREATE TABLE items (id serial PRIMARY KEY, body text NOT NULL);
      INSERT INTO items (body) SELECT md5(i::text) FROM generate_series(1, 5000) AS i;`);
    // pg_dump's output is cut after 8 KiB but ends as if complete (exit code 0): the store and pg_restore both get
    // the same 8 KiB, so size and SHA-256 agree everywhere, and only decoding the whole dump finds that table data is
    // missing.
    const logged = await loggedTools('bravo', `${PG_BIN}/pg_dump "$@" | /usr/bin/head -c 8192`);
    const error = await backup('bravo', 'bravo-1', { tools: logged.tools }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupFailedError);
    expect(error).toMatchObject({ stage: 'Verify' });
    expect((error as Error).message).toMatch(
      /^backup default\/bravo\/bravo-1: verification failed: the dump could not be decoded in full: pg_restore exited with code 1: .*could not read from input file: end of file/s,
    );
    expect(await filesIn('bravo')).toEqual([]);
    expect(await logged.processes()).toEqual({ started: 2, running: [] });
    await createEmptyDatabase('bravo');
    expect(await restoreLatestBackup({ store, namespace: 'default', postgresql: 'bravo', connection: on('bravo'), role: 'app' })).toEqual({
      outcome: 'NoBackup',
    });
  });

  it('a stream pg_restore rejects at once stops pg_dump: the store gets no more than the decode may lag behind', async () => {
    await createEmptyDatabase('kilo');
    // A stand-in for pg_dump that writes what no pg_restore accepts, and would never stop: the backup ends only if
    // pg_restore's failure stops it.
    const logged = await loggedTools('kilo', 'exec /bin/cat /dev/zero');
    let sentToStore = 0;
    const counting = storeWithWrite(async function* (data) {
      for await (const chunk of data) {
        sentToStore += chunk.byteLength;
        yield chunk;
      }
    });
    const error = await backup('kilo', 'kilo-1', { store: counting, tools: logged.tools }).catch((e: unknown) => e);
    expect(error).toMatchObject({ stage: 'Verify' });
    // pg_restore's own message, not the broken pipe its exit caused.
    expect((error as Error).message).toMatch(
      /^backup default\/kilo\/kilo-1: verification failed: the dump could not be decoded in full: pg_restore exited with code 1: pg_restore: error: did not find magic string in file header$/,
    );
    // What pg_restore may lag behind the store, and what was in the pipes when it gave up, at most.
    expect(sentToStore).toBeLessThan(DECODE_LAG_BYTES + 1024 * 1024);
    expect(await filesIn('kilo')).toEqual([]);
    expect(await logged.processes()).toEqual({ started: 2, running: [] });
  });

  it('a store that fails stops pg_dump and pg_restore, keeps nothing and says so', async () => {
    await createItems('lima', 400_000);
    const logged = await loggedTools('lima');
    const failing = storeWithWrite(async function* (data) {
      for await (const chunk of data) {
        yield chunk;
        throw new Error('ENOSPC: no space left on device, write');
      }
    });
    const error = await backup('lima', 'lima-1', { store: failing, tools: logged.tools }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      stage: 'Store',
      message: 'backup default/lima/lima-1: storing the dump failed: ENOSPC: no space left on device, write',
    });
    expect(await filesIn('lima')).toEqual([]);
    expect(await logged.processes()).toEqual({ started: 2, running: [] });
    await waitFor(async () => (await pgDumpSessions('lima')) === 0, { what: "pg_dump's session to end" });
  });

  it('a store that stops reading early and reports success publishes nothing', async () => {
    await createItems('mike', 5000);
    // Takes the first 8 KiB and returns as if that were all: stored size and SHA-256 agree with what it took.
    const truncating = storeWithWrite(async function* (data) {
      let sent = 0;
      for await (const chunk of data) {
        const room = 8192 - sent;
        yield chunk.subarray(0, room);
        sent += Math.min(room, chunk.byteLength);
        if (sent >= 8192) return;
      }
    });
    const logged = await loggedTools('mike');
    const error = await backup('mike', 'mike-1', { store: truncating, tools: logged.tools }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      stage: 'Store',
      message: 'backup default/mike/mike-1: storing the dump failed: the store stopped reading the dump after 8192 bytes, before its end, and reported success',
    });
    expect(await filesIn('mike')).toEqual([]);
    expect(await logged.processes()).toEqual({ started: 2, running: [] });
  });

  it('a store that keeps other bytes than pg_restore decoded publishes nothing', async () => {
    await createItems('november', 5000);
    // Flips one byte on its way to the disk and reports the SHA-256 of what it wrote: the stored dump reads back as
    // written, but it is not the dump pg_restore decoded.
    const flipping = storeWithWrite(async function* (data) {
      let first = true;
      for await (const chunk of data) {
        const copy = Buffer.from(chunk);
        if (first) copy.writeUInt8(copy.readUInt8(100) ^ 0xff, 100);
        first = false;
        yield copy;
      }
    });
    const error = await backup('november', 'november-1', { store: flipping }).catch((e: unknown) => e);
    expect(error).toMatchObject({ stage: 'Verify' });
    expect((error as Error).message).toMatch(
      /^backup default\/november\/november-1: verification failed: pg_restore decoded (\d+) bytes with SHA-256 [0-9a-f]{64}, but the store holds \1 bytes with SHA-256 [0-9a-f]{64}$/,
    );
    expect(await filesIn('november')).toEqual([]);
  });

  it('a stored dump damaged after it was written fails the checksum read-back and is deleted', async () => {
    await createItems('oscar', 5000);
    // The store loses the last 100 bytes after acknowledging the write (a bad disk, someone else's truncate).
    const lossy = storeWith({
      write: async (k, data, options) => {
        const stored = await store.write(k, data, options);
        await truncate(join(storeRoot, 'default', 'oscar', `${k.backup}.dump`), stored.size - 100);
        return stored;
      },
    });
    const error = await backup('oscar', 'oscar-1', { store: lossy }).catch((e: unknown) => e);
    expect(error).toMatchObject({ stage: 'Verify' });
    expect((error as Error).message).toMatch(
      /^backup default\/oscar\/oscar-1: verification failed: the stored dump reads back as (\d+) bytes with SHA-256 [0-9a-f]{64}, but (\d+) bytes with SHA-256 [0-9a-f]{64} were written$/,
    );
    const [, readBack, written] = /reads back as (\d+) .* but (\d+) bytes/.exec((error as Error).message) ?? [];
    expect(Number(written) - Number(readBack)).toBe(100);
    expect(await filesIn('oscar')).toEqual([]);
  });

  it('the database dying in the middle of a dump publishes nothing, and the next backup succeeds', async () => {
    await createItems('charlie', 400_000);
    // Hold the stream after its first chunk, so pg_dump is certainly still copying rows when its connection is killed.
    let reached!: () => void;
    const firstChunk = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gated = storeWithWrite(async function* (data) {
      let first = true;
      for await (const chunk of data) {
        yield chunk;
        if (first) {
          first = false;
          reached();
          await released;
        }
      }
    });
    const logged = await loggedTools('charlie');
    const attempt = backup('charlie', 'charlie-1', { store: gated, tools: logged.tools }).catch((e: unknown) => e);
    await firstChunk;
    const [dumping] = await waitFor(
      async () => {
        const rows = await query<{ pid: number }>(
          'postgres',
          "SELECT pid FROM pg_stat_activity WHERE datname = 'charlie' AND application_name = 'pg_dump' " +
            "AND query LIKE 'COPY public.items%' AND wait_event = 'ClientWrite'",
        );
        return rows.length === 1 ? rows : undefined;
      },
      { what: "pg_dump's session to be blocked sending rows" },
    );
    expect(await query<{ ok: boolean }>('postgres', 'SELECT pg_terminate_backend($1) AS ok', [dumping?.pid])).toEqual([{ ok: true }]);
    release();

    const error = await attempt;
    expect(error).toBeInstanceOf(BackupFailedError);
    expect(error).toMatchObject({ stage: 'Dump' });
    // The server could not even say why (it was blocked sending): pg_dump sees the connection close mid-COPY. Not
    // pg_restore's complaint about the dump that ended there: pg_dump's failure is the cause.
    expect((error as Error).message).toMatch(
      /^backup default\/charlie\/charlie-1: pg_dump failed: pg_dump exited with code 1: pg_dump: error: Dumping the contents of table "items" failed/,
    );
    expect((error as Error).message).not.toContain(PASSWORD);
    expect(await filesIn('charlie')).toEqual([]); // no temp file, no data, no manifest
    expect((await store.list({ namespace: 'default', postgresql: 'charlie' })).backups).toEqual([]);
    expect(await logged.processes()).toEqual({ started: 2, running: [] });

    const next = await backup('charlie', 'charlie-2');
    expect(await filesIn('charlie')).toEqual(['charlie-2.dump', 'charlie-2.manifest.json']);
    expect(await store.verifyChecksum(next.key)).toMatchObject({ ok: true });
  });

  it('an abort stops pg_dump and pg_restore at once and publishes nothing', async () => {
    await createItems('india', 400_000);
    const controller = new AbortController();
    // Abort once the first bytes arrived: pg_dump is running and its session is open.
    const aborting = storeWithWrite(async function* (data) {
      for await (const chunk of data) {
        yield chunk;
        controller.abort(new Error('operator shutting down'));
      }
    });
    const logged = await loggedTools('india');
    const error = await runBackup({
      store: aborting,
      key: key('india', 'india-1'),
      trigger: 'Scheduled',
      connection: on('india'),
      signal: controller.signal,
      tools: logged.tools,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ stage: 'Dump', message: 'backup default/india/india-1: aborted: operator shutting down' });
    expect(await filesIn('india')).toEqual([]);
    expect(await logged.processes()).toEqual({ started: 2, running: [] });
    await waitFor(async () => (await pgDumpSessions('india')) === 0, { what: "pg_dump's session to end" });
  });

  it("starts the store's preparation at once, and the dump only once it is done", async () => {
    await createItems('tango', 1000);
    const logged = await loggedTools('tango');
    const order: string[] = [];
    const watched = storeWithWrite((data) => {
      order.push('write');
      return data;
    });
    const running = runBackup({
      store: watched, key: key('tango', 'tango-1'), trigger: 'OnDemand', connection: on('tango'), tools: logged.tools,
      prepareStore: async () => {
        order.push('prepare started');
        // Still preparing when the server's version has been read and both tools found: the dump must wait.
        await waitFor(async () => (await logged.versionLookups()) === 2 || undefined, { what: 'the lookup of pg_dump and pg_restore' });
        order.push('prepare done');
      },
    });
    expect(order).toEqual(['prepare started']);
    const manifest = await running;
    expect(order).toEqual(['prepare started', 'prepare done', 'write']);
    expect(await filesIn('tango')).toEqual(['tango-1.dump', 'tango-1.manifest.json']);
    expect(await store.verifyChecksum(manifest.key)).toMatchObject({ ok: true });
  });

  it('a store that cannot be prepared fails the backup at the Store stage before pg_dump starts', async () => {
    await createItems('uniform', 1000);
    const logged = await loggedTools('uniform');
    const error = await runBackup({
      store, key: key('uniform', 'uniform-1'), trigger: 'OnDemand', connection: on('uniform'), tools: logged.tools,
      prepareStore: () => Promise.reject(new Error('the backup store at https://10.0.0.7:8443 refused sweep (403): no access')),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupFailedError);
    expect(error).toMatchObject({
      stage: 'Store',
      message: 'backup default/uniform/uniform-1: getting the store ready for the dump failed: the backup store at https://10.0.0.7:8443 refused sweep (403): no access',
    });
    expect(await logged.processes()).toEqual({ started: 0, running: [] });
    expect(await filesIn('uniform')).toEqual([]);
  });

  it('a backup that cannot connect still lets the store finish its preparation before it fails', async () => {
    let prepared = false;
    const error = await runBackup({
      store, key: key('victor', 'victor-1'), trigger: 'OnDemand', connection: { ...on('app'), password: 'wrong-password' },
      prepareStore: async () => {
        // A slow store: the refused connection comes back first.
        await new Promise((resolve) => setTimeout(resolve, 300));
        prepared = true;
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ stage: 'Connect' });
    expect(prepared).toBe(true);
  });

  it('fails clearly, without the password, when the database cannot be reached', async () => {
    const error = await runBackup({
      store,
      key: key('nowhere', 'nowhere-1'),
      trigger: 'OnDemand',
      connection: { ...on('app'), password: 'wrong-password' },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ stage: 'Connect' });
    expect((error as Error).message).toContain('password authentication failed for user "app"');
    expect((error as Error).message).not.toContain('wrong-password');
    expect(await filesIn('nowhere')).toEqual([]);
  });
});

describe('restore', () => {
  it('brings rows and content back into an empty database, owned by the user, without grants, analyzed', async () => {
    await createEmptyDatabase('delta');
    await query('postgres', "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'legacy_owner') THEN CREATE ROLE legacy_owner; END IF; END $$");
    await query('delta', `
      CREATE TABLE items (id serial PRIMARY KEY, body text NOT NULL);
      INSERT INTO items (body) SELECT 'row ' || i FROM generate_series(1, 3000) AS i;
      CREATE TABLE tags (item_id int REFERENCES items, tag text);
      INSERT INTO tags SELECT id, 'tag' FROM items WHERE id % 10 = 0;
      CREATE VIEW tagged AS SELECT items.* FROM items JOIN tags ON tags.item_id = items.id;
      ALTER TABLE items OWNER TO legacy_owner;
      GRANT SELECT ON tags TO legacy_owner;`);
    const before = await fingerprint('delta');
    const taken = await backup('delta', 'delta-1');

    await createEmptyDatabase('delta'); // a new pod: the database exists again, empty
    const result = await restoreLatestBackup({ store, namespace: 'default', postgresql: 'delta', connection: on('delta'), role: 'app' });
    expect(result).toEqual({ outcome: 'Restored', backup: taken, skipped: [] });

    expect(await fingerprint('delta')).toEqual(before);
    expect(await query('delta', 'SELECT count(*)::int AS n FROM tagged')).toEqual([{ n: 300 }]);
    expect(await query('delta', "SELECT nextval('items_id_seq')::int AS next")).toEqual([{ next: 3001 }]);
    // --no-owner --role=app: everything belongs to the PostgreSQL's user; --no-acl: no grants to roles of the source.
    expect(await query('delta', "SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'")).toEqual([{ owner: 'app' }]);
    expect(await query('delta', "SELECT has_table_privilege('legacy_owner', 'tags', 'SELECT') AS granted")).toEqual([{ granted: false }]);
    // ANALYZE ran: planner statistics exist (a dump carries none, and only ANALYZE writes pg_statistic).
    const stats = await query<{ tablename: string }>('delta', "SELECT DISTINCT tablename FROM pg_stats WHERE schemaname = 'public' ORDER BY 1");
    expect(stats.map((s) => s.tablename)).toEqual(['items', 'tags']);
  });

  it('never restores into a database that holds data, and leaves that data alone', async () => {
    await createEmptyDatabase('echo');
    await query('echo', `
      CREATE TABLE items (id serial PRIMARY KEY, body text NOT NULL);
      INSERT INTO items (body) VALUES ('first'), ('second');`);
    const taken = await backup('echo', 'echo-1');
    await query('echo', "INSERT INTO items (body) VALUES ('newer than the backup')");
    const current = await fingerprint('echo');

    const error = await restoreBackup({ store, backup: taken, connection: on('echo'), role: 'app' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseNotEmptyError);
    expect((error as Error).message).toBe(
      'database echo is not empty (table public.items, sequence public.items_id_seq): a restore never overwrites existing data',
    );
    expect(await restoreLatestBackup({ store, namespace: 'default', postgresql: 'echo', connection: on('echo'), role: 'app' })).toEqual({
      outcome: 'NotEmpty',
      found: ['table public.items', 'sequence public.items_id_seq'],
    });
    expect(await fingerprint('echo')).toEqual(current);
  });

  it('detects a corrupted dump by its checksum, never restores it, and falls back to the previous backup', async () => {
    await createEmptyDatabase('foxtrot');
    await query('foxtrot', `
      CREATE TABLE items (id serial PRIMARY KEY, body text NOT NULL);
      INSERT INTO items (body) SELECT 'early ' || i FROM generate_series(1, 100) AS i;`);
    const early = await fingerprint('foxtrot');
    const older = await backup('foxtrot', 'foxtrot-1');
    await query('foxtrot', "INSERT INTO items (body) SELECT 'late ' || i FROM generate_series(1, 50) AS i");
    const newer = await backup('foxtrot', 'foxtrot-2');

    // One flipped byte in the middle of the newer dump (bit rot, a bad disk).
    const handle = await open(join(storeRoot, 'default', 'foxtrot', 'foxtrot-2.dump'), 'r+');
    try {
      const middle = Math.floor(newer.size / 2);
      const byte = Buffer.alloc(1);
      await handle.read(byte, 0, 1, middle);
      await handle.write(Buffer.from([byte[0] === undefined ? 0 : byte[0] ^ 0xff]), 0, 1, middle);
    } finally {
      await handle.close();
    }
    expect(await store.verifyChecksum(newer.key)).toMatchObject({ ok: false, problem: 'ChecksumMismatch' });

    await createEmptyDatabase('foxtrot');
    const direct = await restoreBackup({ store, backup: newer, connection: on('foxtrot'), role: 'app' }).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(BackupCorruptedError);
    expect((direct as Error).message).toMatch(/^backup is corrupted and was not restored: default\/foxtrot\/foxtrot-2: the dump's SHA-256 is [0-9a-f]{64}, its manifest says [0-9a-f]{64}$/);
    expect((await withConnection(on('foxtrot'), isDatabaseEmpty)).empty).toBe(true);

    const result = await restoreLatestBackup({ store, namespace: 'default', postgresql: 'foxtrot', connection: on('foxtrot'), role: 'app' });
    expect(result).toEqual({
      outcome: 'Restored',
      backup: older,
      skipped: [{ key: newer.key, reason: 'Corrupted', message: expect.stringContaining("the dump's SHA-256 is") as string }],
    });
    expect(await fingerprint('foxtrot')).toEqual(early);
  });

  it('reports when backups exist but none is intact', async () => {
    await createEmptyDatabase('golf');
    await query('golf', 'CREATE TABLE items (id int)');
    const only = await backup('golf', 'golf-1');
    await rm(join(storeRoot, 'default', 'golf', 'golf-1.dump'));
    await createEmptyDatabase('golf');
    expect(await restoreLatestBackup({ store, namespace: 'default', postgresql: 'golf', connection: on('golf'), role: 'app' })).toEqual({
      outcome: 'NoUsableBackup',
      skipped: [{ key: only.key, reason: 'Corrupted', message: 'default/golf/golf-1: the dump file is missing' }],
    });
  });

  it('a restore that fails half-way leaves the database empty (single transaction)', async () => {
    await createEmptyDatabase('hotel');
    // Rows that break a foreign key, inserted with its trigger disabled: the dump loads every table and all rows, then
    // fails when pg_restore adds the constraint, after most of the work is done.
    await query('hotel', `
      CREATE TABLE parents (id int PRIMARY KEY);
      CREATE TABLE children (id int PRIMARY KEY, parent_id int REFERENCES parents);
      INSERT INTO parents SELECT generate_series(1, 1000);
      INSERT INTO children SELECT i, i FROM generate_series(1, 1000) AS i;
      ALTER TABLE children DISABLE TRIGGER ALL;
      INSERT INTO children VALUES (1001, 999999);
      ALTER TABLE children ENABLE TRIGGER ALL;`);
    await backup('hotel', 'hotel-1'); // the dump itself is fine: it reads back in full

    await createEmptyDatabase('hotel');
    const error = await restoreLatestBackup({ store, namespace: 'default', postgresql: 'hotel', connection: on('hotel'), role: 'app' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RestoreFailedError);
    expect((error as Error).message).toMatch(
      /^restoring default\/hotel\/hotel-1 into database hotel failed and was rolled back: pg_restore exited with code 1: .*violates foreign key constraint "children_parent_id_fkey"/s,
    );
    expect(await withConnection(on('hotel'), isDatabaseEmpty)).toEqual({ empty: true, found: [] });
  });
});

/**
 * A lib directory holding only PostgreSQL 17 stand-ins (for --version, all the lookup asks) of pg_dump and pg_restore,
 * which log any other run: the server is 15, so neither may ever be run.
 */
async function newerMajorOnly(name: string) {
  const directory = join(toolsRoot, name);
  const ran = join(directory, 'ran');
  await mkdir(join(directory, '17', 'bin'), { recursive: true });
  for (const tool of ['pg_dump', 'pg_restore']) {
    await writeFile(join(directory, '17', 'bin', tool), `#!/bin/sh\n[ "$1" = --version ] && { echo '${tool} (PostgreSQL) 17.2'; exit 0; }\necho ${tool} >> ${ran}\nexit 1\n`, { mode: 0o755 });
  }
  return {
    tools: { libDirectory: directory, path: '' },
    path: (tool: string) => join(directory, '17', 'bin', tool),
    /** The stand-ins run for anything but --version. */
    ran: async (): Promise<string[]> => (await readFile(ran, 'utf8').catch(() => '')).split('\n').filter((line) => line !== ''),
  };
}

const IMAGE_ADVICE =
  "Run the operator with an image that carries postgresql-client-15: the project's image carries postgresql-client-15, " +
  "postgresql-client-16, postgresql-client-17 (the Dockerfile's POSTGRES_MAJORS).";

describe("without the client tools of the server's major", () => {
  it('a backup fails at once, runs no pg_dump, and its Job ends Failed with reason PgToolMissing and what to do', async () => {
    await createItems('whiskey', 100);
    const newer = await newerMajorOnly('whiskey');
    const [{ version }] = (await query<{ version: string }>('whiskey', "SELECT current_setting('server_version') AS version")) as [{ version: string }];
    const expected =
      `backup default/whiskey/whiskey-1: no usable client tools for PostgreSQL ${version}: pg_dump 15 is needed for a ` +
      `PostgreSQL 15 server, and found only pg_dump 17.2 (${newer.path('pg_dump')}): a backup is taken only with the ` +
      "pg_dump of the server's major (an older one cannot dump the server; a newer one writes dumps this server cannot " +
      `restore). ${IMAGE_ADVICE}`;
    const error = await backup('whiskey', 'whiskey-1', { tools: newer.tools }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupFailedError);
    expect(error).toMatchObject({ stage: 'Tools', message: expected });
    expect(await newer.ran()).toEqual([]);
    expect(await filesIn('whiskey')).toEqual([]);

    // The same in a backup Job's process, to what the operator records: the Job (backoffLimit 0: never run again)
    // exits 1, and its termination message becomes the PostgreSQLBackup's Failed status with its reason.
    const secretsDir = join(toolsRoot, 'whiskey-secrets');
    await mkdir(secretsDir, { recursive: true });
    await writeFile(join(secretsDir, BACKUP_JOB_FILES.password), PASSWORD);
    const terminationLog = join(toolsRoot, 'whiskey-termination-log');
    const exitCode = await runBackupJob({
      input: {
        key: key('whiskey', 'whiskey-2'), trigger: 'Scheduled',
        connection: { host: server.host, port: server.port, database: 'whiskey', user: server.user },
        // A store nobody answers for: the missing tool is what the backup reports.
        store: { kind: 'volume', url: 'https://127.0.0.1:1', serverName: 'store.invalid', ca: '' },
      },
      secretsDir, terminationLog, logger: createLogger({ level: 'silent' }), signal: new AbortController().signal, tools: newer.tools,
    });
    expect(exitCode).toBe(1);
    const message = await readFile(terminationLog, 'utf8');
    const pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'whiskey-2-backup-x' },
      status: { containerStatuses: [{ name: BACKUP_JOB_CONTAINER, image: 'op', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, message } } }] },
    };
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { namespace: 'default', name: 'whiskey-2-backup' }, status: { conditions: [{ type: 'Failed', status: 'True' }] } };
    const outcome = await jobOutcome({} as KubeClient, job, [pod]);
    expect(outcome).toMatchObject({ finished: true, succeeded: false, reason: 'PgToolMissing', error: expected.replace('whiskey-1', 'whiskey-2') });
    if (!outcome.finished || outcome.succeeded) throw new Error('the Job did not fail');
    const status = failedStatus(backupFixture('whiskey-2', { status: { phase: 'Running' } }), outcome.error, new Date(), outcome.reason);
    expect(status).toMatchObject({ phase: 'Failed', reason: 'PgToolMissing', error: expected.replace('whiskey-1', 'whiskey-2') });
    expect(await newer.ran()).toEqual([]);
  });

  it('a restore refuses at once, leaves the database empty and the pod without traffic, and is not retried', async () => {
    await createItems('xray', 100);
    await backup('xray', 'xray-1');
    await createEmptyDatabase('xray');
    const newer = await newerMajorOnly('xray');
    const error = await restoreLatestBackup({ store, namespace: 'default', postgresql: 'xray', connection: on('xray'), role: 'app', tools: newer.tools }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PgToolNotFoundError);
    expect(await newer.ran()).toEqual([]);
    expect(await withConnection(on('xray'), isDatabaseEmpty)).toEqual({ empty: true, found: [] });

    const verdict = restoreFailureVerdict('xray-pod', databaseProblem(error, { secret: 'xray-password', user: 'app' }));
    const said =
      `pod xray-pod was not restored and receives no traffic: pg_restore 15 is needed for a PostgreSQL 15 server, and found ` +
      `only pg_restore 17.2 (${newer.path('pg_restore')}): a restore runs only with the pg_restore of the server's major (a ` +
      "newer one sets what this server refuses, e.g. pg_restore 17's transaction_timeout on a 15 server). " +
      IMAGE_ADVICE;
    expect(verdict).toEqual({
      serve: false, // not labelled appReady=ok
      condition: { status: 'False', reason: 'PgToolMissing', message: said },
      events: [{ type: 'Warning', reason: 'PgToolMissing', note: said }],
      metric: 'failed',
      corrupted: [],
    });
    expect(RETRY_CANNOT_FIX.has(verdict.condition.reason)).toBe(true);
  });

  it('a newest backup dumped from a newer major is refused, not passed over for an older one', async () => {
    await createItems('yankee', 100);
    const older = await backup('yankee', 'yankee-1');
    // What a PostgreSQL 17 server's backup would be: the same bytes, under a manifest that says pg_dump 17.2 wrote them.
    const newerKey = key('yankee', 'yankee-2');
    const stored = await store.write(newerKey, store.read(older.key));
    await store.finalize({
      ...older, key: newerKey, serverVersion: '17.2', serverVersionNum: 170002, pgDumpVersion: '17.2',
      finishedAt: new Date(Date.parse(older.finishedAt) + 60_000).toISOString(), size: stored.size, sha256: stored.sha256,
    });
    await createEmptyDatabase('yankee');
    const error = await restoreLatestBackup({ store, namespace: 'default', postgresql: 'yankee', connection: on('yankee'), role: 'app' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DumpNewerThanServerError);
    const [{ version }] = (await query<{ version: string }>('yankee', "SELECT current_setting('server_version') AS version")) as [{ version: string }];
    expect((error as Error).message).toBe(
      `backup default/yankee/yankee-2 was written by pg_dump 17.2 (from a PostgreSQL 17.2 server) and is not restored into ` +
        `this PostgreSQL ${version} server: a dump is restored only into a server of its pg_dump's major or newer. Run the ` +
        'database on PostgreSQL 17 or newer (spec.image, e.g. postgres:17).',
    );
    expect(await withConnection(on('yankee'), isDatabaseEmpty)).toEqual({ empty: true, found: [] });
    expect(databaseProblem(error, { secret: 'yankee-password', user: 'app' }).reason).toBe('DumpNewerThanServer');
  });
});

describe('why the read-back is a full read', () => {
  /** Runs pg_restore with `args`, feeding it `input` on stdin as the backup does; resolves with its exit code and stderr. */
  function pgRestore(args: string[], input: Uint8Array): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(`${PG_BIN}/pg_restore`, args, { stdio: ['pipe', 'ignore', 'pipe'], env: { LC_ALL: 'C' } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin.on('error', () => undefined); // --list stops reading after the table of contents
      child.stdin.end(input);
      child.once('error', reject);
      child.once('close', (code) => {
        resolve({ code, stderr });
      });
    });
  }

  it('pg_restore --list accepts a truncated dump that the full decode (--file=/dev/null) refuses', async () => {
    await createEmptyDatabase('juliet');
    await query('juliet', `
      CREATE TABLE items (id serial PRIMARY KEY, body text NOT NULL);
      INSERT INTO items (body) SELECT md5(i::text) FROM generate_series(1, 5000) AS i;`);
    await backup('juliet', 'juliet-1');
    const whole = await readFile(join(storeRoot, 'default', 'juliet', 'juliet-1.dump'));
    const truncated = whole.subarray(0, Math.floor(whole.length / 2));
    expect(await pgRestore(['--format=custom', '--list'], truncated)).toEqual({ code: 0, stderr: '' });
    expect(await pgRestore(['--format=custom', '--file=/dev/null'], truncated)).toEqual({
      code: 1,
      stderr: expect.stringContaining('could not read from input file: end of file') as string,
    });
  });
});
