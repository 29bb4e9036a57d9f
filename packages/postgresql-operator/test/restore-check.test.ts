import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestCluster, waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresqlFixture } from './postgresql-fixture.ts';
import { startPostgresPod } from './postgres-pod.ts';
import { resolvePostgreSQLSpec } from '../src/api/resolved-postgresql-spec.ts';
import { answersVerdict, failureVerdict, type RestoreCheckVerdict } from '../src/controller/restore-check-verdict.ts';
import { desiredRestoreCheckPod } from '../src/desired/desired-restore-check-pod.ts';
import { runBackup } from '../src/dump/run-backup.ts';
import { connectionParameters, forDatabase, withConnection, type ConnectionParameters } from '../src/postgres/connection.ts';
import type { RestoreCheckQuery } from '../src/api/resolved-postgresql-spec.ts';
import { restoreAndRead } from '../src/restore/restore-check.ts';
import { DirectoryBackupStore } from '../src/stores/directory-store.ts';
import type { BackupManifest } from '../src/stores/manifest.ts';
import { AgeIdentity, parseAgeRecipients } from '../src/encryption/age-keys.ts';
import { isDatabaseEmpty } from '../src/postgres/inspect.ts';
import type { IdentitySource } from '../src/restore/backup-decryption.ts';
import { newKeyPair, type KeyPair } from './age-streams.ts';

// Restore drills against real PostgreSQL 15 servers on testkit's local node: the live database, and a scratch pod made
// from desiredRestoreCheckPod exactly as the operator creates it (but for its owner, which does not exist here). Each
// drill restores a real backup, taken with the real pg_dump, into a database of its own on the scratch server, and the
// verdict is what the operator records.

const PASSWORD = 'dr1ll-Passw0rd';
const context = { secret: 'live-password', user: 'foo' };
let cluster: TestCluster;
let live: ConnectionParameters;
let scratch: ConnectionParameters;
let storeRoot: string;
let store: DirectoryBackupStore;

async function sql(connection: ConnectionParameters, text: string): Promise<void> {
  await withConnection(connection, async (client) => client.query(text));
}

const backups = new Map<string, Promise<BackupManifest>>();
/** The one backup of a database of the live server, taken on first use. */
function backupOf(database: string): Promise<BackupManifest> {
  const backup = backups.get(database) ?? runBackup({ store, key: { namespace: 'default', postgresql: database, backup: `${database}-1` }, trigger: 'OnDemand', connection: forDatabase(live, database) });
  backups.set(database, backup);
  return backup;
}

/** One drill as the operator runs it: restore into a fresh database of the scratch server, read back, judge. */
async function drill(backup: BackupManifest, into: string, check?: RestoreCheckQuery, identity?: IdentitySource): Promise<RestoreCheckVerdict> {
  await sql(scratch, `CREATE DATABASE ${into}`);
  const connection = forDatabase(scratch, into);
  try {
    const { answers } = await restoreAndRead({ store, backup, connection, role: 'foo', ...(check === undefined ? {} : { check }), ...(identity === undefined ? {} : { identity }) });
    return answersVerdict(check, answers);
  } catch (error) {
    const answers = await withConnection(connection, async (client) => client.query('SELECT 1')).then(() => true, () => false);
    return failureVerdict(error, answers, context);
  }
}

beforeAll(async () => {
  cluster = await TestCluster.start();
  live = await startPostgresPod(cluster, { name: 'live', user: 'foo', password: PASSWORD, database: 'foo' });
  // The scratch pod, from the operator's own builder: the live database's image, user, database and password Secret.
  const postgresql = postgresqlFixture({ spec: { password: 'live-password', backup: { verify: {} } } });
  const spec = resolvePostgreSQLSpec(postgresql.spec);
  const pod = desiredRestoreCheckPod(postgresql, spec, spec.backup.verify ?? { schedule: { ok: false, message: '' }, resources: {} }, 'shop-1');
  const { ownerReferences: _owner, ...metadata } = pod.metadata;
  const api = await cluster.admin();
  await api.create('/api/v1/namespaces/default/pods', { ...pod, metadata: { ...metadata, namespace: 'default' } });
  const podIP = await waitFor(
    async () => {
      const created = await api.get<{ status?: { podIP?: string; conditions?: { type: string; status: string }[] } }>(`/api/v1/namespaces/default/pods/${metadata.name}`);
      return created?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? created.status.podIP : undefined;
    },
    { what: 'the scratch pod to be Ready', timeoutMs: 90_000 },
  );
  scratch = connectionParameters({ podIP, database: 'foo', user: 'foo', password: PASSWORD });
  storeRoot = await mkdtemp(join(tmpdir(), 'pg-drills-'));
  store = new DirectoryBackupStore(storeRoot);
}, 180_000);
afterAll(async () => {
  await cluster.stop();
  await rm(storeRoot, { recursive: true, force: true });
});

describe('a restore drill on a real server', () => {
  it('restores a good backup into the scratch pod and passes, counting every table and answering the check', async () => {
    await sql(live, `CREATE DATABASE shop`);
    await sql(forDatabase(live, 'shop'), `
      CREATE TABLE items (id int PRIMARY KEY, body text NOT NULL);
      INSERT INTO items SELECT i, md5(i::text) FROM generate_series(1, 1000) AS i;
      CREATE SCHEMA billing;
      CREATE TABLE billing."Invoices" (id int, paid boolean);
      INSERT INTO billing."Invoices" VALUES (1, true), (2, NULL);`);
    const backup = await backupOf('shop');
    expect(await drill(backup, 'drill_pass')).toEqual({ result: 'Passed', output: '2 tables, 1002 rows: billing."Invoices" 2, public.items 1000' });
    // Values as psql prints them: booleans as t, NULL as nothing.
    const check = { query: 'SELECT id, paid FROM billing."Invoices" ORDER BY id', expect: '1|t\n2|' };
    expect(await drill(backup, 'drill_query', check)).toMatchObject({ result: 'Passed', output: expect.stringContaining('check query answered "1|t\\n2|"') as string });
    // The live database was only read by pg_dump.
    expect(await withConnection(forDatabase(live, 'shop'), async (client) => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM items')).rows[0]?.n)).toBe(1000);
  });

  it('fails on a check whose answer differs, and on a check query the restored data cannot answer', async () => {
    const backup = await backupOf('shop');
    expect(await drill(backup, 'drill_mismatch', { query: 'SELECT count(*) FROM items', expect: '999' })).toMatchObject({
      result: 'Failed',
      reason: 'CheckMismatch',
      error: 'the check query answered "1000", expected "999"',
    });
    expect(await drill(backup, 'drill_missing', { query: 'SELECT count(*) FROM orders', expect: '1' })).toMatchObject({
      result: 'Failed',
      reason: 'CheckFailed',
      error: expect.stringContaining('relation "orders" does not exist') as string,
    });
  });

  it('fails on a dump that decodes but that the server refuses to restore, with pg_restore\'s reason', async () => {
    // A CHECK that reads another table: valid when the rows went in, but a restore loads b's rows before z's.
    await sql(live, 'CREATE DATABASE refused');
    await sql(forDatabase(live, 'refused'), `
      CREATE TABLE z (id int);
      CREATE FUNCTION z_rows() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM public.z';
      CREATE TABLE b (id int CHECK (public.z_rows() > 0));
      INSERT INTO z VALUES (1);
      INSERT INTO b VALUES (1);`);
    const verdict = await drill(await backupOf('refused'), 'drill_refused');
    expect(verdict).toMatchObject({ result: 'Failed', reason: 'RestoreFailed', error: expect.stringContaining('violates check constraint') as string });
  });

  it('of an encrypted backup passes with the identity of a recipient, and fails NoMatchingIdentity with another, restoring nothing', async () => {
    const [recipient, stranger] = await Promise.all([newKeyPair(), newKeyPair()]);
    const backup = await runBackup({
      store, key: { namespace: 'default', postgresql: 'shop', backup: 'shop-age' }, trigger: 'OnDemand', connection: forDatabase(live, 'shop'),
      recipients: parseAgeRecipients([recipient.recipient]),
    });
    const identityOf = (pair: KeyPair): IdentitySource => () => AgeIdentity.parse(pair.identity);
    expect(await drill(backup, 'drill_age', undefined, identityOf(recipient))).toEqual({ result: 'Passed', output: '2 tables, 1002 rows: billing."Invoices" 2, public.items 1000' });
    const refused = await drill(backup, 'drill_age_stranger', undefined, identityOf(stranger));
    expect(refused).toMatchObject({ result: 'Failed', reason: 'NoMatchingIdentity', error: expect.stringContaining(`it was encrypted to ${recipient.recipient}`) as string });
    expect((await withConnection(forDatabase(scratch, 'drill_age_stranger'), isDatabaseEmpty)).empty).toBe(true);
  });

  it('is interrupted, not failed, when the scratch pod is gone', async () => {
    const backup = await backupOf('shop');
    const api = await cluster.admin();
    await api.delete('/api/v1/namespaces/default/pods/foodb-restore-check', { gracePeriodSeconds: 0 });
    await waitFor(async () => ((await api.get('/api/v1/namespaces/default/pods/foodb-restore-check')) === undefined ? true : undefined), { what: 'the scratch pod to be gone', timeoutMs: 60_000 });
    const connection = forDatabase(scratch, 'foo');
    const error = await restoreAndRead({ store, backup, connection, role: 'foo' }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeDefined();
    expect(failureVerdict(error, false, context)).toMatchObject({ result: 'Interrupted' });
  });
});
