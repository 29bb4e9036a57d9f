// End to end, a PostgreSQL 17 server (trixie's 17: on the local cluster the node runs its stand-in image,
// tools/images/postgres-stand-in.sh; on kind, the stand-in in kind's local registry) beside the operator's client
// tools, as a user meets it. The operator image built where only Debian bookworm's tools install
// (POSTGRES_APT_SOURCE=debian, this machine) carries pg_dump and pg_restore 15 only: the 17 server must get no backup
// and no restore from them, both refused at once, saying which tool is missing and which image to run. The image built
// from the PostgreSQL project's repository (pgdg, GitHub's runners) carries 17's tools too: there the same steps must
// back up with pg_dump 17 and restore with pg_restore 17. The spec asks the running operator which it has.
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, onTestFailed, onTestFinished, test } from 'vitest';
import { openE2eCluster, waitFor, waitForCrdsEstablished, type E2eCluster } from '@k8s-operators/testkit';
import { queryPod, type DatabaseLogin, type PodAddress } from './cluster-access.ts';

const run = promisify(execFile);
const NS = 'postgresql-e2e-majors';
const OPERATOR_NS = 'postgresql-operator-system';
const SERVER_17_IMAGE = 'postgres:17';
/** What the operator's refusals say to do, for either tool. */
const ADVICE = 'Run the operator with an image that carries postgresql-client-17';
let cluster: E2eCluster;
/** Whether the running operator image carries PostgreSQL 17's client tools (/usr/lib/postgresql/17/bin). */
let has17Tools: boolean;

interface Condition { type: string; status: string; reason: string; message: string }
interface Pod { metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string }; spec: { containers: { image: string }[] }; status: { podIP?: string; conditions?: { type: string; status: string }[] } }
interface Backup { metadata: { name: string }; status?: { phase?: string; reason?: string; error?: string; verified?: boolean; sha256?: string; sizeBytes?: number; pgDumpVersion?: string } }

function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    const logs = await cluster.kubectl(['-n', OPERATOR_NS, 'logs', '-l', 'control-plane=controller-manager', '--prefix', '--tail=60']);
    const events = await cluster.kubectl(['-n', NS, 'get', 'events.events.k8s.io', '-o', 'custom-columns=REGARDING:.regarding.name,TYPE:.type,REASON:.reason,NOTE:.note']);
    const objects = await cluster.kubectl(['-n', NS, 'get', 'postgresqls,postgresqlbackups,jobs,pods', '-o', 'wide', '--show-labels']);
    console.error(`--- operator logs\n${logs.stdout}${logs.stderr}\n--- events\n${events.stdout}\n--- objects\n${objects.stdout}`);
  });
}

const apply = (manifest: unknown): Promise<string> => cluster.kubectlOk(['-n', NS, 'apply', '-f', '-'], { input: JSON.stringify(manifest) });
const jsonpath = (resource: string, path: string): Promise<string> => cluster.kubectlOk(['-n', NS, 'get', resource, '-o', `jsonpath=${path}`]);
const condition = async (name: string, type: string): Promise<Condition | undefined> =>
  (JSON.parse((await jsonpath(`postgresql/${name}`, '{.status.conditions}')) || '[]') as Condition[]).find((c) => c.type === type);
const loginOf = (name: string): DatabaseLogin => ({ database: 'app', user: 'app', password: `${name}-secret` });
const backupOf = async (name: string): Promise<Backup> => JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'postgresqlbackup', name, '-o', 'json'])) as Backup;
const isReady = (pod: Pod): boolean => pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** A PostgreSQL on `image` whose backups wait to be asked for, and its password Secret. */
async function database(name: string, image?: string): Promise<void> {
  await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-password` }, stringData: { postgresql_password: `${name}-secret` } });
  await apply({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', metadata: { name }, spec: { db: 'app', user: 'app', password: `${name}-password`, ...(image === undefined ? {} : { image }), backup: { suspend: true } } });
  onTestFinished(async () => {
    await cluster.kubectlOk(['-n', NS, 'patch', `postgresql/${name}`, '--type=merge', '-p', JSON.stringify({ spec: { backup: { onDelete: { finalBackup: false } } } })]);
    await cluster.kubectlOk(['-n', NS, 'delete', `postgresql/${name}`, '--wait=false']);
  });
}

async function podsOf(name: string, selector = ''): Promise<Pod[]> {
  const pods = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'pods', '-l', `exp.wheel.jp/postgresql=${name}${selector}`, '-o', 'json'])) as { items: Pod[] };
  return pods.items.filter((p) => p.metadata.deletionTimestamp === undefined);
}

/** The pod clients of `name` are sent to: Ready and labelled appReady=ok. */
async function servingPod(name: string): Promise<PodAddress> {
  return waitFor(async () => {
    const pod = (await podsOf(name, ',appReady=ok')).find(isReady);
    return pod?.status.podIP ? { namespace: NS, name: pod.metadata.name, ip: pod.status.podIP } : undefined;
  }, { what: `a serving pod of ${name}`, timeoutMs: 120_000 });
}

const serverVersion = async (pod: PodAddress, name: string): Promise<string> =>
  (await queryPod<{ version: string }>(cluster, pod, loginOf(name), "SELECT current_setting('server_version') AS version"))[0]?.version ?? '';

/**
 * The majors whose client tools the running operator has under /usr/lib/postgresql: read from its image with the engine
 * that built it (the local node's, or the one kind/e2e.sh loaded it from; exec into the Pod is not what testkit's node
 * offers), or from this machine when the operator runs as a local process.
 */
async function operatorToolMajors(): Promise<string[]> {
  const image = await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'deployment/postgresql-operator-controller-manager', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
  const listing = cluster.imageRuntime === 'testkit'
    ? (await readdir('/usr/lib/postgresql')).join('\n')
    : (await run('docker', ['run', '--rm', '--network', 'none', '--entrypoint', 'ls', image, '/usr/lib/postgresql'])).stdout;
  return listing.split(/\s+/).filter(Boolean);
}

async function notes(regarding: string, reason: string): Promise<string[]> {
  const text = await cluster.kubectlOk(['-n', NS, 'get', 'events.events.k8s.io', `--field-selector=regarding.name=${regarding},reason=${reason}`, '-o', 'jsonpath={range .items[*]}{.note}{"\\n"}{end}']);
  return text.split('\n').filter(Boolean);
}

describe('a PostgreSQL 17 server, backed up and restored only with PostgreSQL 17\'s client tools', () => {
  beforeAll(async () => {
    cluster = await openE2eCluster();
    await cluster.installer.install('postgresql-operator');
    await waitForCrdsEstablished((args) => cluster.kubectlOk(args), ['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp']);
    await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', 'deployment/postgresql-operator-controller-manager', '--timeout=180s']);
    await cluster.freshNamespace(NS);
    has17Tools = (await operatorToolMajors()).includes('17');
  }, 300_000);

  afterAll(async () => {
    await (cluster as E2eCluster | undefined)?.close();
  });

  test('its backup is taken with pg_dump 17, or, where the image has no pg_dump 17, refused at once with PgToolMissing naming it and what to do', async () => {
    diagnoseOnFailure();
    await database('v17', SERVER_17_IMAGE);
    const pod = await servingPod('v17');
    // The server really is 17: a 15 in its place would be backed up with 15's pg_dump, and this test would fail.
    expect(await serverVersion(pod, 'v17')).toMatch(/^17\.\d+/);
    await queryPod(cluster, pod, loginOf('v17'), 'CREATE TABLE items AS SELECT i AS id FROM generate_series(1, 100) AS i');

    await apply({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: 'v17-1' }, spec: { postgresql: 'v17' } });
    const ended = await waitFor(async () => {
      const backup = await backupOf('v17-1');
      return backup.status?.phase === 'Failed' || backup.status?.phase === 'Completed' ? backup : undefined;
    }, { what: 'backup v17-1 to end', timeoutMs: 120_000 });
    if (has17Tools) {
      expect(ended.status).toMatchObject({ phase: 'Completed', verified: true, pgDumpVersion: expect.stringMatching(/^17\./) as string });
      return;
    }
    expect(ended.status).toMatchObject({ phase: 'Failed', reason: 'PgToolMissing' });
    const error = ended.status?.error ?? '';
    expect(error).toMatch(/pg_dump 17 is needed for a PostgreSQL 17 server, and found only pg_dump 15\.\d+ \(\/usr\/lib\/postgresql\/15\/bin\/pg_dump( and \/usr\/bin\/pg_dump)?\)/);
    expect(error).toContain(ADVICE);
    // Nothing was dumped: no size, digest or verification, and no pg_dump version to speak of.
    for (const field of ['verified', 'sha256', 'sizeBytes', 'pgDumpVersion'] as const) expect(ended.status).not.toHaveProperty(field);
    // At once: the Job's one pod stopped at its tool check; no retry (backoffLimit 0), no back-off (2.4 s here from the
    // PostgreSQLBackup to Failed, on a loaded machine).
    expect(await jsonpath('job/v17-1-backup', '{.status.failed}')).toBe('1');
    expect((await condition('v17', 'BackupSucceeded'))).toMatchObject({ status: 'False', message: expect.stringContaining('pg_dump 17 is needed') as string });
    expect((await notes('v17-1', 'PgToolMissing')).join('\n')).toContain('pg_dump 17 is needed for a PostgreSQL 17 server');
    expect(await jsonpath('postgresqlbackups', '{.items[?(@.status.phase=="Completed")].metadata.name}')).toBe('');
  }, 300_000);

  test('a 15 backup is restored into a 17 server with pg_restore 17, or, where the image has none, refused with Restored=False PgToolMissing naming it; the pod then stays empty and out of the Service', async () => {
    diagnoseOnFailure();
    // A backup of the same database on 15, which the operator's tools do take.
    await database('upgrade');
    const old = await servingPod('upgrade');
    expect(await serverVersion(old, 'upgrade')).toMatch(/^15\.\d+/);
    await queryPod(cluster, old, loginOf('upgrade'), 'CREATE TABLE items AS SELECT i AS id FROM generate_series(1, 100) AS i');
    await apply({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: 'upgrade-1' }, spec: { postgresql: 'upgrade' } });
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Completed', 'postgresqlbackup/upgrade-1', '--timeout=120s']);
    expect((await backupOf('upgrade-1')).status?.pgDumpVersion).toMatch(/^15\./);

    // The user moves the database to 17: its new, empty pod would be restored from upgrade-1, and is not.
    await cluster.kubectlOk(['-n', NS, 'patch', 'postgresql/upgrade', '--type=merge', '-p', JSON.stringify({ spec: { image: SERVER_17_IMAGE } })]);
    if (has17Tools) {
      const restored = await waitFor(async () => {
        const pod = (await podsOf('upgrade', ',appReady=ok')).find((p) => isReady(p) && p.spec.containers[0]?.image === SERVER_17_IMAGE);
        return pod?.status.podIP ? { namespace: NS, name: pod.metadata.name, ip: pod.status.podIP } : undefined;
      }, { what: 'a serving pod of upgrade on 17', timeoutMs: 180_000 });
      expect(await serverVersion(restored, 'upgrade')).toMatch(/^17\.\d+/);
      expect(await queryPod(cluster, restored, loginOf('upgrade'), 'SELECT count(*)::int AS n FROM items')).toEqual([{ n: 100 }]);
      return;
    }
    const refused = await waitFor(async () => {
      const restored = await condition('upgrade', 'Restored');
      return restored?.reason === 'PgToolMissing' ? restored : undefined;
    }, { what: 'Restored=False PgToolMissing', timeoutMs: 180_000 });
    expect(refused.status).toBe('False');
    expect(refused.message).toMatch(/pg_restore 17 is needed for a PostgreSQL 17 server, and found only pg_restore 15\.\d+ \(\/usr\/lib\/postgresql\/15\/bin\/pg_restore( and \/usr\/bin\/pg_restore)?\)/);
    expect(refused.message).toContain(ADVICE);
    expect((await notes('upgrade', 'PgToolMissing')).join('\n')).toContain('pg_restore 17 is needed');

    const [pod, ...others] = await podsOf('upgrade');
    expect(others).toEqual([]);
    expect(pod?.spec.containers[0]?.image).toBe(SERVER_17_IMAGE);
    expect(pod?.metadata.labels?.appReady).toBeUndefined();
    const address = { namespace: NS, name: pod?.metadata.name ?? '', ip: pod?.status.podIP ?? '' };
    expect(await serverVersion(address, 'upgrade')).toMatch(/^17\.\d+/);
    // Nothing of the backup went in: no half-restored table for anyone to find.
    expect(await queryPod(cluster, address, loginOf('upgrade'), "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).toEqual([{ n: 0 }]);
  }, 420_000);
});
