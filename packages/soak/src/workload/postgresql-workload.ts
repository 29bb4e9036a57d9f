// PostgreSQL databases created and deleted; a writer per database commits numbered rows through the Service's ready
// endpoint and records what PostgreSQL acknowledged; scheduled and on-demand backups to both stores (the volume through
// the backup store service, and the bucket); serving pods deleted so that restores happen. Every pod that becomes a
// ready endpoint is queried as it appears, and every PostgreSQLBackup followed to its end.
import pg from 'pg';
import type { RunningSeaweedFs } from '@k8s-operators/testkit';
import type { SoakCluster } from '../cluster/soak-cluster.ts';
import { SOAK_BUCKET } from '../install.ts';
import { aborted, sleep } from '../loop.ts';
import type { Random } from '../random.ts';
import type { Recorder } from '../recorder.ts';
import type { BackupRecord } from '../timeline.ts';
import { watchObjects, type KubeObject, type WatchedObjects } from '../watched-objects.ts';

export const POSTGRESQL_NAMESPACE = 'soak-postgresql';
const MIN_DATABASES = 2;
const MAX_DATABASES = 3;
/** A database lives at least this long before the workload may delete it: long enough for backups and restores. */
const MIN_LIFE_MS = 4 * 60_000;
const WRITE_INTERVAL_MS = 500;

interface Pod extends KubeObject { status?: { podIP?: string; conditions?: { type: string; status: string }[] } }
interface Condition { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }
interface PostgreSQL extends KubeObject { status?: { conditions?: Condition[] } }
interface Backup extends KubeObject {
  spec: { postgresql: string };
  status?: { phase?: string; verified?: boolean; startTime?: string; completionTime?: string; error?: string; s3?: Record<string, unknown> };
}

interface Database { name: string; store: 'volume' | 'bucket'; createdAt: number; deletedAt?: number; writer?: Promise<void> }

const login = (db: string): pg.ClientConfig => ({ user: 'app', password: `${db}-secret`, database: 'app', port: 5432, connectionTimeoutMillis: 3_000, query_timeout: 5_000 });
const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const time = (text: string | undefined): number | undefined => (text === undefined ? undefined : Date.parse(text));

export interface PostgreSQLWorkload {
  prepare(): Promise<void>;
  act(): Promise<void>;
  /** Follows pods and backups, and runs the writers, until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** The serving pod of a database, and one database (for the fault injector). */
  servingPod(db: string): Pod | undefined;
  /** The databases that exist, or only those backed up to one store. */
  liveDatabases(store?: 'volume' | 'bucket'): string[];
  backups(): ReadonlyMap<string, Backup>;
  counts(): Record<string, number>;
  /** Databases the workload deleted (their backups stay in the stores: the default onDelete is Retain). */
  deletedDatabases(): string[];
}

export function postgresqlWorkload(cluster: SoakCluster, seaweed: RunningSeaweedFs, recorder: Recorder, random: Random): PostgreSQLWorkload {
  const counts = { 'databases created': 0, 'databases deleted': 0, 'on-demand backups': 0, 'database pods deleted': 0, 'rows acknowledged': 0, 'ready endpoints queried': 0 };
  const databases: Database[] = [];
  const watchAbort = new AbortController();
  /** Set by run(): the writers start there, so a database created before (by prepare) gets its writer then. */
  let runSignal: AbortSignal | undefined;
  let pods: WatchedObjects<Pod> | undefined;
  let backups: WatchedObjects<Backup> | undefined;
  let postgresqls: WatchedObjects<PostgreSQL> | undefined;
  let created = 0;
  let backupsMade = 0;
  /** Each pod's ready-endpoint query, by pod name: the writer writes to a pod only after it was queried. */
  const readyQueries = new Map<string, Promise<void>>();

  const live = (): Database[] => databases.filter((d) => d.deletedAt === undefined);
  const servingPod = (db: string): Pod | undefined => [...(pods?.items.values() ?? [])].find((p) =>
    p.metadata.labels?.['exp.wheel.jp/postgresql'] === db && p.metadata.labels.appReady === 'ok' && p.metadata.deletionTimestamp === undefined && isReady(p) && p.status?.podIP !== undefined);

  async function createDatabase(): Promise<void> {
    const name = `db-${String(created++)}`;
    const store = created % 2 === 0 ? 'bucket' : 'volume';
    const backup: Record<string, unknown> = { schedule: '*/3 * * * *' };
    if (store === 'bucket') {
      backup.s3 = { bucket: SOAK_BUCKET, endpoint: seaweed.httpsEndpoint, region: seaweed.region, forcePathStyle: true, credentialsSecret: 's3-credentials', caBundle: { configMapKeyRef: { name: 's3-ca', key: 'ca.crt' } } };
    }
    await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'apply', '-f', '-'], { input: [
      JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-password` }, stringData: { postgresql_password: `${name}-secret` } }),
      JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', metadata: { name }, spec: { db: 'app', user: 'app', password: `${name}-password`, backup } }),
    ].join('\n---\n') });
    const database: Database = { name, store, createdAt: Date.now() };
    databases.push(database);
    if (runSignal) database.writer = writer(database, runSignal);
    counts['databases created']++;
  }

  /**
   * Commits rows 1, 2, 3... through the serving pod, one every 500 ms. After a restore the table holds the rows of the
   * backup, 1..m, and the writer goes on from m + 1: the table always holds exactly 1..n, which a mixed or partial
   * restore would break.
   */
  async function writer(database: Database, signal: AbortSignal): Promise<void> {
    let client: pg.Client | undefined;
    let clientPod = '';
    let next = 1;
    while (!signal.aborted && database.deletedAt === undefined) {
      try {
        const pod = servingPod(database.name);
        if (client && pod?.metadata.name !== clientPod) {
          await client.end().catch(() => undefined);
          client = undefined;
        }
        if (!client && pod?.status?.podIP !== undefined) {
          await readyQueries.get(pod.metadata.name);
          const connecting = new pg.Client({ host: pod.status.podIP, ...login(database.name) });
          connecting.on('error', () => undefined);
          await connecting.connect();
          client = connecting;
          clientPod = pod.metadata.name;
          await client.query('CREATE TABLE IF NOT EXISTS soak_rows (n integer PRIMARY KEY)');
          next = ((await client.query<{ m: number }>('SELECT coalesce(max(n), 0)::int AS m FROM soak_rows')).rows[0]?.m ?? 0) + 1;
        }
        if (client) {
          await client.query('INSERT INTO soak_rows (n) VALUES ($1)', [next]);
          recorder.writerAcks.push({ db: database.name, pod: clientPod, row: next, at: Date.now() });
          counts['rows acknowledged']++;
          next++;
        }
      } catch {
        // The pod went away (deleted, or the database restarting): the next round connects to whichever serves then.
        await client?.end().catch(() => undefined);
        client = undefined;
      }
      await sleep(WRITE_INTERVAL_MS, signal);
    }
    await client?.end().catch(() => undefined);
  }

  /**
   * What the operator says of a pod's data: the `Restored` condition naming this pod (the operator labels the pod
   * first and writes the condition after, so an earlier pod's condition may still be there), and for a restore the
   * `Restored` Event's time, when the restore completed (the condition's lastTransitionTime does not move from one
   * restored pod to the next). Waits up to a minute for both; nothing, when the operator never said.
   */
  async function operatorsAccount(db: string, podName: string): Promise<{ restoredFrom?: string; restoreCompletedAt?: number }> {
    const names = (text: string | undefined): boolean => (text ?? '').startsWith(`pod ${podName} `);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !aborted(watchAbort.signal)) {
      const restored = postgresqls?.items.get(`${POSTGRESQL_NAMESPACE}/${db}`)?.status?.conditions?.find((c) => c.type === 'Restored');
      if (names(restored?.message)) {
        if (restored?.reason !== 'Restored') return {};
        const restoredFrom = /restored from backup (\S+)/.exec(restored.message ?? '')?.[1];
        const events = await cluster.api.get<{ items: { note?: string; eventTime?: string }[] }>(
          `/apis/events.k8s.io/v1/namespaces/${POSTGRESQL_NAMESPACE}/events?fieldSelector=${encodeURIComponent(`reason=Restored,regarding.name=${db}`)}`,
        ).catch(() => undefined);
        const event = events?.items.find((e) => names(e.note) && e.eventTime !== undefined);
        if (event?.eventTime !== undefined) return { ...(restoredFrom === undefined ? {} : { restoredFrom }), restoreCompletedAt: Date.parse(event.eventTime) };
      }
      await sleep(1_000, watchAbort.signal);
    }
    return {};
  }

  /**
   * Queries a pod the moment it became a ready endpoint, before the writer may write to it: what a client sent there
   * would find. Resolves when the query is done (the writer waits for that); the record follows once the operator's
   * account of the pod is known.
   */
  async function queryNewReadyEndpoint(pod: Pod): Promise<void> {
    const db = pod.metadata.labels?.['exp.wheel.jp/postgresql'] ?? '';
    const at = Date.now();
    // Generous, as a real client's: a ready endpoint on two saturated cores may take seconds to answer, not a minute.
    const client = new pg.Client({ host: pod.status?.podIP, ...login(db), connectionTimeoutMillis: 15_000, query_timeout: 15_000 });
    client.on('error', () => undefined);
    let found: { rowCount: number; maxRow: number; contiguous: boolean; queryError?: string };
    try {
      await client.connect();
      const exists = (await client.query<{ t: string | null }>("SELECT to_regclass('public.soak_rows')::text AS t")).rows[0]?.t !== null;
      const row = exists ? (await client.query<{ c: number; m: number; lo: number }>('SELECT count(*)::int AS c, coalesce(max(n), 0)::int AS m, coalesce(min(n), 1)::int AS lo FROM soak_rows')).rows[0] : undefined;
      const rowCount = row?.c ?? 0;
      const maxRow = row?.m ?? 0;
      found = { rowCount, maxRow, contiguous: rowCount === maxRow && (row?.lo ?? 1) === 1 };
    } catch (error) {
      found = { rowCount: 0, maxRow: 0, contiguous: true, queryError: `${(error as Error).message} (after ${String(Date.now() - at)} ms)` };
    } finally {
      counts['ready endpoints queried']++;
      await client.end().catch(() => undefined);
    }
    void operatorsAccount(db, pod.metadata.name).then((account) => {
      recorder.readyEndpoints.push({ db, pod: pod.metadata.name, at, ...account, ...found });
    });
  }

  function recordBackup(backup: Backup): void {
    const key = backup.metadata.name;
    let record: BackupRecord | undefined = recorder.backups.find((b) => b.name === key);
    if (!record) {
      record = { db: backup.spec.postgresql, name: key, store: 'volume', phase: 'Pending', location: `${POSTGRESQL_NAMESPACE}/${backup.spec.postgresql}/${key}` };
      recorder.backups.push(record);
    }
    const status = backup.status ?? {};
    record.store = status.s3 === undefined ? 'volume' : 'bucket';
    record.phase = status.phase ?? record.phase;
    if (status.verified !== undefined) record.verified = status.verified;
    if (status.error !== undefined) record.error = status.error;
    const startAt = time(status.startTime);
    const completedAt = time(status.completionTime);
    if (startAt !== undefined) record.startAt = startAt;
    if (completedAt !== undefined) record.completedAt = completedAt;
  }

  return {
    counts: () => ({ ...counts }),
    servingPod,
    liveDatabases: (store) => live().filter((d) => store === undefined || d.store === store).map((d) => d.name),
    deletedDatabases: () => databases.filter((d) => d.deletedAt !== undefined).map((d) => d.name),
    backups: () => backups?.items ?? new Map(),
    async prepare() {
      await cluster.kubectlOk(['create', 'namespace', POSTGRESQL_NAMESPACE]);
      await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'apply', '-f', '-'], { input: [
        JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's3-credentials' }, stringData: { accessKeyId: seaweed.credentials.accessKeyId, secretAccessKey: seaweed.credentials.secretAccessKey } }),
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's3-ca' }, data: { 'ca.crt': seaweed.caPem } }),
      ].join('\n---\n') });
      pods = watchObjects<Pod>(cluster.api, `/api/v1/namespaces/${POSTGRESQL_NAMESPACE}/pods`, watchAbort.signal, (type, pod) => {
        if (type === 'DELETED' || readyQueries.has(pod.metadata.name)) return;
        if (pod.metadata.labels?.appReady === 'ok' && isReady(pod) && pod.status?.podIP !== undefined) {
          readyQueries.set(pod.metadata.name, queryNewReadyEndpoint(pod));
        }
      });
      backups = watchObjects<Backup>(cluster.api, `/apis/exp.wheel.jp/v1/namespaces/${POSTGRESQL_NAMESPACE}/postgresqlbackups`, watchAbort.signal, (type, backup) => {
        if (type !== 'DELETED') recordBackup(backup);
      });
      postgresqls = watchObjects<PostgreSQL>(cluster.api, `/apis/exp.wheel.jp/v1/namespaces/${POSTGRESQL_NAMESPACE}/postgresqls`, watchAbort.signal);
      await Promise.all([pods.synced, backups.synced, postgresqls.synced]);
      for (let i = 0; i < MIN_DATABASES; i++) await createDatabase();
      const deadline = Date.now() + 300_000;
      while (live().some((d) => servingPod(d.name) === undefined)) {
        if (Date.now() > deadline) throw new Error(`the databases ${live().filter((d) => servingPod(d.name) === undefined).map((d) => d.name).join(', ')} never served within 5 min`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    },
    async act() {
      const dbs = live();
      const old = dbs.filter((d) => Date.now() - d.createdAt > MIN_LIFE_MS);
      const choice = dbs.length < MIN_DATABASES ? 'create'
        : random.pick(['backup', 'backup', 'delete-pod', ...(dbs.length < MAX_DATABASES ? ['create'] as const : []), ...(old.length > 0 && dbs.length > MIN_DATABASES ? ['delete'] as const : [])] as const);
      if (choice === 'create') {
        await createDatabase();
      } else if (choice === 'backup') {
        const db = random.pick(dbs);
        await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'apply', '-f', '-'], { input: JSON.stringify({
          apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: `${db.name}-soak-${String(backupsMade++)}` }, spec: { postgresql: db.name, trigger: 'OnDemand' },
        }) });
        counts['on-demand backups']++;
      } else if (choice === 'delete-pod') {
        const pod = servingPod(random.pick(dbs).name);
        if (pod) {
          recorder.disruptions.push({ kind: 'db-pod-delete', target: `${POSTGRESQL_NAMESPACE}/${pod.metadata.name}`, at: Date.now() });
          await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'delete', 'pod', pod.metadata.name, '--wait=false']);
          counts['database pods deleted']++;
        }
      } else {
        const db = random.pick(old);
        await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'delete', 'postgresql', db.name, '--wait=false']);
        db.deletedAt = Date.now();
        counts['databases deleted']++;
      }
    },
    async run(signal) {
      runSignal = signal;
      for (const database of live()) database.writer = writer(database, signal);
      await new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve(); }, { once: true }); });
      await Promise.all(databases.flatMap((d) => (d.writer ? [d.writer] : [])));
      watchAbort.abort();
    },
  };
}

