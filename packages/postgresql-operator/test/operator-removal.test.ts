// Removing the operator must not remove the databases' data. Its controllers run in this process, as the installed
// ClusterRole's ServiceAccount, against a real API server whose node runs real PostgreSQL servers and the operator's
// backup Jobs (from this checkout's sources), to a real S3 store (SeaweedFS). A user who deletes a PostgreSQLBackup or a
// PostgreSQL still deletes what it stands for; deleting the CRDs, as `kubectl delete -k deploy/postgresql-operator` does,
// deletes every object of both kinds while the operator still runs, and then every dump, every data claim is kept.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { KubeClient, Manager, Resources, createLogger } from '@k8s-operators/controller-core';
import { startSeaweedFs, TestCluster, waitFor, waitForCrdsEstablished, type RunningSeaweedFs } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { POSTGRESQL_BACKUP_CRD, POSTGRESQL_CRD, PostgreSQLBackupRef, PostgreSQLRef } from '../src/api/postgresql-refs.ts';
import type { PostgreSQL } from '../src/api/postgresql-resource.ts';
import { KEPT_DATA_OF_ANNOTATION } from '../src/controller/kept-data-claim.ts';
import { setupControllers } from '../src/controller/setup-controllers.ts';
import { openS3BackupStore } from '../src/stores/s3-store-options.ts';
import type { BackupStore } from '../src/stores/store.ts';

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const NS = 'shop';
const OPERATOR_NS = 'postgresql-operator-system';
const OPERATOR_IMAGE = 'ghcr.io/k8s-operators/postgresql-operator:0.1.0';
const BUCKET = 'backups';

let work: string;
let cluster: TestCluster;
let admin: KubeClient;
let s3: RunningSeaweedFs;
let store: BackupStore;
let manager: Manager;
let running: Promise<void>;
const logLines: string[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pg-operator-removal-'));
  // Backup Jobs run the operator image: here, its entry point from the sources under test.
  const imageMap = join(work, 'image-map.yaml');
  await writeFile(imageMap, JSON.stringify({ images: [{ match: OPERATOR_IMAGE, runner: 'node', with: { entry: 'packages/postgresql-operator/test/image-from-source.ts' } }] }));
  cluster = await TestCluster.start({ imageMapFile: imageMap });
  await installCrds();
  // The operator's ServiceAccount with the ClusterRole as installed: every permission the deletions need is in it.
  await kubectlOk(['create', 'namespace', NS]);
  await kubectlOk(['create', 'namespace', OPERATOR_NS]);
  await kubectlOk(['-n', OPERATOR_NS, 'create', 'serviceaccount', 'controller-manager']);
  await kubectlOk(['apply', '-f', join(REPOSITORY, 'deploy/postgresql-operator/rbac/role.yaml')]);
  await kubectlOk(['create', 'clusterrolebinding', 'manager-rolebinding', '--clusterrole=manager-role', `--serviceaccount=${OPERATOR_NS}:controller-manager`]);

  s3 = await startSeaweedFs({ bucket: BUCKET });
  store = await openS3BackupStore({ bucket: BUCKET, endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials });
  admin = await KubeClient.load({ kubeconfig: cluster.adminKubeconfig });
  await kubectlOk(['-n', NS, 'create', 'secret', 'generic', 's3-credentials', `--from-literal=accessKeyId=${s3.credentials.accessKeyId}`, `--from-literal=secretAccessKey=${s3.credentials.secretAccessKey}`]);

  manager = await Manager.create({
    name: 'postgresql-operator', kubeconfig: await cluster.serviceAccountKubeconfig(OPERATOR_NS, 'controller-manager'), namespace: NS,
    leaderElection: { enabled: false }, healthProbeBindAddress: '0', metricsBindAddress: '0',
    logger: createLogger({ level: 'info', name: 'postgresql-operator', destination: { write: (line: string) => void logLines.push(line) } }),
  });
  // The backup volume's service is never used: every PostgreSQL here keeps its backups in the bucket.
  setupControllers(manager, { storeService: { namespace: OPERATOR_NS, name: 'backup-store', secretName: 'backup-store-tls' }, storeTokenFile: join(work, 'unused-token'), backupImage: OPERATOR_IMAGE });
  running = manager.start();
}, 240_000);

async function kubectlOk(args: readonly string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

async function installCrds(): Promise<void> {
  await kubectlOk(['apply', '-k', join(REPOSITORY, 'deploy/postgresql-operator/crd')]);
  await waitForCrdsEstablished((args) => kubectlOk(args), [POSTGRESQL_CRD, POSTGRESQL_BACKUP_CRD]);
}

afterAll(async () => {
  // Undefined where start-up failed: that failure is the one to report.
  (manager as Manager | undefined)?.stop();
  await (running as Promise<void> | undefined);
  await (admin as KubeClient | undefined)?.close();
  await (s3 as RunningSeaweedFs | undefined)?.stop();
  await (cluster as TestCluster | undefined)?.stop();
  await rm(work, { recursive: true, force: true });
});

/** On failure: what the person on call would read first. */
function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    const events = await cluster.kubectl(['-n', NS, 'get', 'events.events.k8s.io', '-o', 'custom-columns=REGARDING:.regarding.name,TYPE:.type,REASON:.reason,NOTE:.note']);
    console.error(`--- operator log (last 60 lines)\n${logLines.slice(-60).join('')}\n--- events\n${events.stdout}${events.stderr}`);
  });
}

/** A PostgreSQL with a data claim and its backups in the bucket, and its password Secret. */
async function createDatabase(name: string, backup: Record<string, unknown> = {}): Promise<PostgreSQL> {
  await admin.create(Resources.Secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-password`, namespace: NS }, stringData: { postgresql_password: `${name}-secret` } });
  return createPostgreSQL(name, backup);
}

function createPostgreSQL(name: string, backup: Record<string, unknown> = {}): Promise<PostgreSQL> {
  return admin.create(PostgreSQLRef, {
    apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', metadata: { name, namespace: NS },
    spec: {
      db: 'app', user: 'app', password: `${name}-password`, storage: { size: '1Gi' },
      backup: { suspend: true, s3: { bucket: BUCKET, endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentialsSecret: 's3-credentials' }, ...backup },
    },
  });
}

/** Waits for a pod of `name` to serve (restored, labelled appReady=ok), so that backups can run; returns its address. */
async function waitUntilServing(name: string): Promise<string> {
  const pod = await waitFor(async () => (await admin.list(Resources.Pod, { namespace: NS, labelSelector: `exp.wheel.jp/postgresql=${name},appReady=ok` })).items.find((p) => p.status?.podIP !== undefined), {
    what: `a serving pod of PostgreSQL ${name}`, timeoutMs: 120_000,
  });
  return pod.status?.podIP ?? '';
}

/** Runs `sql` on the database of a serving pod of `name` (the PostgreSQLs here: database and user app). */
async function query(name: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ host: await waitUntilServing(name), port: 5432, database: 'app', user: 'app', password: `${name}-secret`, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** Creates an on-demand PostgreSQLBackup and waits until it is Completed and verified, its dump in the bucket. */
async function takeBackup(name: string, postgresql: string): Promise<void> {
  await admin.create(PostgreSQLBackupRef, { apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name, namespace: NS }, spec: { postgresql, trigger: 'OnDemand' } });
  const status = await waitFor(async () => {
    const backup = await admin.get(PostgreSQLBackupRef, { namespace: NS, name });
    return backup?.status?.phase === 'Completed' || backup?.status?.phase === 'Failed' ? backup.status : undefined;
  }, { what: `backup ${name} to finish`, timeoutMs: 120_000 });
  expect(status).toMatchObject({ phase: 'Completed', verified: true });
}

/** The names of the backups of `postgresql` in the bucket (those with a manifest, and any unreadable). */
async function storedBackups(postgresql: string): Promise<string[]> {
  const listing = await store.list({ namespace: NS, postgresql });
  return [...listing.backups.map((b) => b.key.backup), ...listing.unreadable.map((u) => `unreadable ${u.key.backup}`)].sort();
}

async function events(regarding: string, reason: string): Promise<{ type: string | undefined; note: string | undefined }[]> {
  const list = await admin.list(Resources.Event, { namespace: NS });
  return list.items.filter((e) => e.regarding?.name === regarding && e.reason === reason).map((e) => ({ type: e.type, note: e.note }));
}

const claimOf = (postgresql: string): ReturnType<KubeClient['get']> => admin.get(Resources.PersistentVolumeClaim, { namespace: NS, name: `${postgresql}-data` });

describe('a user deleting an object still deletes what it stands for', () => {
  test('a deleted PostgreSQLBackup takes its dump with it; a deleted PostgreSQL gets its final backup, and its data claim goes', async () => {
    diagnoseOnFailure();
    const postgresql = await createDatabase('gone');
    await waitUntilServing('gone');
    await takeBackup('gone-1', 'gone');
    await takeBackup('gone-2', 'gone');
    expect(await storedBackups('gone')).toEqual(['gone-1', 'gone-2']);

    await admin.delete(PostgreSQLBackupRef, { namespace: NS, name: 'gone-1' });
    await waitFor(async () => (await admin.get(PostgreSQLBackupRef, { namespace: NS, name: 'gone-1' })) === undefined, { what: 'backup gone-1 to be deleted' });
    expect(await storedBackups('gone')).toEqual(['gone-2']);

    await admin.delete(PostgreSQLRef, { namespace: NS, name: 'gone' });
    await waitFor(async () => (await admin.get(PostgreSQLRef, { namespace: NS, name: 'gone' })) === undefined, { what: 'PostgreSQL gone to be deleted', timeoutMs: 120_000 });
    const final = `gone-final-${(postgresql.metadata.uid ?? '').replace(/-/g, '').slice(0, 8)}`;
    expect((await admin.get(PostgreSQLBackupRef, { namespace: NS, name: final }))?.status).toMatchObject({ phase: 'Completed', verified: true });
    // backup.onDelete.backups: Retain (the default) keeps the stored backups.
    expect(await storedBackups('gone')).toEqual([final, 'gone-2'].sort());
    await waitFor(async () => (await claimOf('gone')) === undefined, { what: 'the data claim gone-data to be deleted with its PostgreSQL', timeoutMs: 60_000 });
    expect(logLines.join('')).not.toContain('the operator is being uninstalled');
  }, 360_000);
});

describe('removing the operator with its CRDs', () => {
  test('keeps every dump and every data claim, takes no final backup, and says so', async () => {
    diagnoseOnFailure();
    // onDelete.backups: Delete, the policy that deletes most when a user deletes the database.
    const postgresql = await createDatabase('kept', { onDelete: { backups: 'Delete' } });
    await waitUntilServing('kept');
    await takeBackup('kept-1', 'kept');
    expect(await storedBackups('kept')).toEqual(['kept-1']);
    // Written after the backup: only the data claim holds it.
    await query('kept', "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2)");
    const claim = await waitFor(() => claimOf('kept'), { what: 'the data claim kept-data' });
    expect(claim.metadata?.ownerReferences?.map((o) => o.uid)).toEqual([postgresql.metadata.uid]);

    // What `kubectl delete -k deploy/postgresql-operator` does first; the operator is still running. The two CRDs go one
    // after the other here, the backups' first, so that the PostgreSQL's finalizer runs once no PostgreSQLBackup is
    // left to name the newest backup: deleted together, that order came up now and then, and the Event then said there
    // was no verified backup while kept-1 was in the bucket.
    for (const crd of [POSTGRESQL_BACKUP_CRD, POSTGRESQL_CRD]) {
      await admin.delete(Resources.CustomResourceDefinition, { name: crd });
      await waitFor(async () => (await admin.get(Resources.CustomResourceDefinition, { name: crd })) === undefined, {
        what: `CRD ${crd} to be gone (its objects' finalizers removed)`, timeoutMs: 120_000,
      });
    }

    // The database stops (its Deployment and Service go with the PostgreSQL), its data stays.
    await waitFor(async () => (await admin.get(Resources.Deployment, { namespace: NS, name: 'kept' })) === undefined && (await admin.get(Resources.Service, { namespace: NS, name: 'kept' })) === undefined, {
      what: 'the garbage collector to delete the Deployment and Service of the PostgreSQL', timeoutMs: 60_000,
    });
    // The same claim (the same volume), not being deleted, owned by nothing.
    const keptClaim = await claimOf('kept');
    expect(keptClaim?.metadata).toMatchObject({ uid: claim.metadata?.uid });
    expect(keptClaim?.metadata?.deletionTimestamp).toBeUndefined();
    expect(keptClaim?.metadata?.ownerReferences ?? []).toEqual([]);
    expect(keptClaim?.metadata?.annotations?.[KEPT_DATA_OF_ANNOTATION]).toBe('kept');
    // No final backup, and the dump is still there, whole.
    expect(await storedBackups('kept')).toEqual(['kept-1']);
    const manifest = await store.manifest({ namespace: NS, postgresql: 'kept', backup: 'kept-1' });
    expect(manifest?.size).toBeGreaterThan(0);
    expect(await store.verifyChecksum({ namespace: NS, postgresql: 'kept', backup: 'kept-1' })).toMatchObject({ ok: true });

    // For the person on call: what was kept, and why.
    const uninstalling = (crd: string): string => `CRD ${crd} is being deleted (the operator is being uninstalled)`;
    expect(await events('kept', 'DataKept')).toEqual([{
      type: 'Normal',
      note: `${uninstalling(POSTGRESQL_CRD)}: no final backup was taken and every stored backup is kept (backup.onDelete is not applied; the newest verified backup is kept-1); ` +
        'the data claim kept-data is kept, no longer owned by the PostgreSQL. Delete them by hand if they are not wanted.',
    }]);
    const dumpKept = await events('kept-1', 'StoredDumpKept');
    expect(dumpKept.map((e) => e.type)).toEqual(['Normal']);
    expect(dumpKept[0]?.note).toMatch(new RegExp(`^CRD ${POSTGRESQL_BACKUP_CRD} is being deleted \\(the operator is being uninstalled\\): the stored dump of backup kept-1 is kept in its store`));
    const log = logLines.map((line) => JSON.parse(line) as { msg: string });
    expect(log.filter((l) => l.msg.startsWith('the operator is being uninstalled')).map((l) => l.msg)).toEqual(expect.arrayContaining([
      'the operator is being uninstalled: no final backup, the stored backups and the data claim are kept',
      'the operator is being uninstalled: the stored dump is kept',
    ]));

    // Installed again, a PostgreSQL of the same name takes its claim back and serves the data on it as it is: the rows
    // written after the last backup are there, so nothing was restored over them.
    await installCrds();
    const again = await createPostgreSQL('kept', { onDelete: { backups: 'Delete' } });
    const adopted = await waitFor(async () => {
      const current = await claimOf('kept');
      return current?.metadata?.ownerReferences?.some((o) => o.uid === again.metadata.uid && o.controller === true) === true ? current : undefined;
    }, { what: 'the kept data claim to be controlled by the new PostgreSQL kept', timeoutMs: 120_000 });
    expect(adopted.metadata?.uid).toBe(claim.metadata?.uid);
    expect(adopted.metadata?.annotations?.[KEPT_DATA_OF_ANNOTATION]).toBeUndefined();
    expect(await query('kept', 'SELECT id FROM orders ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await events('kept', 'DataClaimAdopted')).map((e) => e.note)).toEqual([
      'the data claim kept-data, kept when the operator was uninstalled, is this PostgreSQL\'s again; the data on it is served as it is',
    ]);
  }, 480_000);
});

describe('a data claim an uninstall kept', () => {
  test('is never taken over by a PostgreSQL of another name, nor one without the mark', async () => {
    diagnoseOnFailure();
    // A claim named as another PostgreSQL's data claim would be, marked for a PostgreSQL of another name.
    await admin.create(Resources.PersistentVolumeClaim, {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      metadata: { name: 'other-data', namespace: NS, annotations: { [KEPT_DATA_OF_ANNOTATION]: 'someone-else' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await admin.create(Resources.Secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'other-password', namespace: NS }, stringData: { postgresql_password: 'other-secret' } });
    await createPostgreSQL('other');
    const ready = await waitFor(async () => {
      const condition = (await admin.get(PostgreSQLRef, { namespace: NS, name: 'other' }))?.status?.conditions?.find((c) => c.type === 'Ready');
      return condition?.reason === 'Conflict' ? condition : undefined;
    }, { what: 'PostgreSQL other to report Ready=False Conflict', timeoutMs: 120_000 });
    expect(ready.message).toContain('PersistentVolumeClaim shop/other-data already exists and is not controlled by PostgreSQL shop/other');
    expect((await claimOf('other'))?.metadata?.ownerReferences ?? []).toEqual([]);
    expect(await events('other', 'DataClaimAdopted')).toEqual([]);
  }, 240_000);
});
