// End to end, with only a kubeconfig, kubectl and pg: install with `kubectl apply -k deploy/postgresql-operator`, then
// use PostgreSQLs the way a user does and check what their clients would see. Runs against testkit's local cluster
// (npm test) and against kind (kind/e2e.sh sets E2E_KUBECONFIG; pg connections then go through port-forward).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFailed, onTestFinished, test } from 'vitest';
import {
  describeOperatorChecks, openE2eCluster, operatorPermissions, REPOSITORY_ROOT, scrapeOperatorWithPrometheus, scrapePodMetrics, startSeaweedFs, waitFor, waitForCrdsEstablished,
  type E2eCluster, type OperatorScrape, type PrometheusAlert, type RunningSeaweedFs,
} from '@k8s-operators/testkit';
import { connectToPod, queryPod, watchObjects, type DatabaseLogin, type PodAddress } from './cluster-access.ts';
import { TcpForwarder } from './tcp-forwarder.ts';

const NS = 'postgresql-e2e';
const OPERATOR_NS = 'postgresql-operator-system';
const OPERATOR = 'deployment/postgresql-operator-controller-manager';
let cluster: E2eCluster;

interface Condition { type: string; status: string; reason: string; message: string }
interface Slice { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }
interface Pod { metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string }; status: { podIP?: string; conditions?: { type: string; status: string }[] } }
const isReady = (pod: Pod): boolean => pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
interface Backup { metadata: { name: string }; spec: { postgresql: string; trigger?: string }; status?: { phase?: string; verified?: boolean; sha256?: string; error?: string; sizeBytes?: number; s3?: Record<string, unknown>; restoreCheck?: RestoreCheck } }
interface RestoreCheck { result: string; reason?: string; request?: string; trigger: string; output?: string; error?: string }

/** The seed's Secret holds bXlwYXNzd29yZA==. */
const SEED_LOGIN: DatabaseLogin = { database: 'foo', user: 'foo', password: 'mypassword' };

beforeAll(async () => {
  cluster = await openE2eCluster();
  await cluster.installer.install('postgresql-operator');
  await waitForCrdsEstablished((args) => cluster.kubectlOk(args), ['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp']);
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', OPERATOR, '--timeout=180s']);
  await cluster.freshNamespace(NS);
  // Scheduled backups every minute: created first, so the first slot passes while the other tests run.
  await apply(database('sched', { backup: { schedule: '* * * * *' } }));
}, 300_000);

afterAll(async () => {
  await cluster.close();
});

/** On failure, show what the person on call would look at first. */
function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    const logs = await cluster.kubectl(['-n', OPERATOR_NS, 'logs', '-l', 'control-plane=controller-manager', '--prefix', '--tail=80']);
    const events = await cluster.kubectl(['-n', NS, 'get', 'events.events.k8s.io', '-o', 'custom-columns=REGARDING:.regarding.name,TYPE:.type,REASON:.reason,NOTE:.note']);
    const objects = await cluster.kubectl(['-n', NS, 'get', 'postgresqls,postgresqlbackups,deployments,pods,endpointslices', '-o', 'wide', '--show-labels']);
    console.error(`--- operator logs\n${logs.stdout}${logs.stderr}\n--- events\n${events.stdout}\n--- objects\n${objects.stdout}`);
  });
}

const apply = (manifest: string): Promise<string> => cluster.kubectlOk(['-n', NS, 'apply', '-f', '-'], { input: manifest });
const jsonpath = (resource: string, path: string, namespace = NS): Promise<string> => cluster.kubectlOk(['-n', namespace, 'get', resource, '-o', `jsonpath=${path}`]);
/** The operator Pod whose manager holds the Lease (its identity is `<pod>_<uuid>`): the one that reconciles. */
const leaderPod = async (): Promise<string> =>
  (await jsonpath('lease/postgresql-operator-leader', '{.spec.holderIdentity}', OPERATOR_NS)).split('_')[0] ?? '';
const conditions = async (name: string): Promise<Condition[]> => JSON.parse((await jsonpath(`postgresql/${name}`, '{.status.conditions}')) || '[]') as Condition[];
const condition = async (name: string, type: string): Promise<Condition | undefined> => (await conditions(name)).find((c) => c.type === type);
const backupOf = async (name: string): Promise<Backup> => JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'postgresqlbackup', name, '-o', 'json'])) as Backup;

/** A PostgreSQL and its password Secret, `<name>-password` holding `<name>-secret`. */
function database(name: string, spec: Record<string, unknown> = {}, withSecret = true): string {
  const resource = JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', metadata: { name }, spec: { db: 'app', user: 'app', password: `${name}-password`, ...spec } });
  const secret = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-password` }, stringData: { postgresql_password: `${name}-secret` } });
  return withSecret ? `${resource}\n---\n${secret}\n` : `${resource}\n`;
}
const loginOf = (name: string): DatabaseLogin => ({ database: 'app', user: 'app', password: `${name}-secret` });

/**
 * Deletes PostgreSQL `name`, without a final backup, when the calling test ends, passed or failed. Every database left
 * running costs the node a pg_isready exec every 2 s and its scheduled backup Jobs: on kind's one node, a dozen of them
 * made each new pod of the later stories take over a minute to start. Called once the object exists.
 */
function retireWhenDone(name: string): void {
  onTestFinished(async () => {
    await cluster.kubectlOk(['-n', NS, 'patch', `postgresql/${name}`, '--type=merge', '-p', JSON.stringify({ spec: { backup: { onDelete: { finalBackup: false } } } })]);
    await cluster.kubectlOk(['-n', NS, 'delete', `postgresql/${name}`, '--wait=false']);
  });
}

/** The pod clients of PostgreSQL `name` are sent to: Ready and labelled appReady=ok. */
async function servingPod(name: string): Promise<PodAddress & { uid: string }> {
  return waitFor(async () => {
    const pods = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'pods', '-l', `exp.wheel.jp/postgresql=${name},appReady=ok`, '-o', 'json'])) as { items: Pod[] };
    const pod = pods.items.find((p) => p.metadata.deletionTimestamp === undefined && isReady(p));
    return pod?.status.podIP ? { namespace: NS, name: pod.metadata.name, ip: pod.status.podIP, uid: pod.metadata.uid } : undefined;
  }, { what: `a serving pod of ${name}`, timeoutMs: 90_000 });
}

const readyAddressesOf = (slices: Slice[]): string[] =>
  slices.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses).sort();

/** The Ready addresses a client of the Service would be sent to. */
async function serviceAddresses(service: string): Promise<string[]> {
  const slices = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'endpointslices', '-l', `kubernetes.io/service-name=${service}`, '-o', 'json'])) as { items: Slice[] };
  return readyAddressesOf(slices.items);
}

async function takeBackup(name: string, postgresql: string, trigger = 'OnDemand'): Promise<Backup> {
  await apply(JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name }, spec: { postgresql, trigger } }));
  await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Completed', `postgresqlbackup/${name}`, '--timeout=60s']);
  const backup = await backupOf(name);
  expect(backup.status).toMatchObject({ phase: 'Completed', verified: true });
  return backup;
}

/**
 * Creates the table items (`setup` adds rows), takes an exclusive lock on it, creates the PostgreSQLBackup `backup`
 * and runs `whileWaiting` once that backup's pg_dump waits for the lock: the backup is certainly still running then.
 * The lock goes with the transaction's COMMIT afterwards, unless `databaseDies` (the session is gone with its pod).
 * Watched from a session of its own: inside the holder's transaction pg_stat_activity is a snapshot taken at the first
 * look, so a pg_dump that starts waiting after that look would never be seen.
 */
async function whilePgDumpWaits(
  postgresql: string,
  pod: PodAddress,
  options: { backup: string; setup?: string; databaseDies?: boolean },
  whileWaiting: () => Promise<void>,
): Promise<void> {
  const holder = await connectToPod(cluster, pod, loginOf(postgresql));
  const observer = await connectToPod(cluster, pod, loginOf(postgresql));
  try {
    await holder.client.query(`CREATE TABLE items (body text); ${options.setup ?? ''}`);
    await holder.client.query('BEGIN');
    await holder.client.query('LOCK TABLE items IN ACCESS EXCLUSIVE MODE');
    await apply(JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: options.backup }, spec: { postgresql } }));
    await waitFor(async () => {
      const waiting = await observer.client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'pg_dump' AND wait_event_type = 'Lock'");
      return Number(waiting.rows[0]?.n) > 0;
    }, { what: `the pg_dump of backup ${options.backup} to wait for the lock on items`, timeoutMs: 120_000 });
    await whileWaiting();
    if (options.databaseDies !== true) await holder.client.query('COMMIT');
  } finally {
    await observer.close();
    await holder.close();
  }
}

async function deletePodAndWaitForSuccessor(name: string, pod: PodAddress & { uid: string }, gracePeriod?: number): Promise<PodAddress & { uid: string }> {
  await cluster.kubectlOk(['-n', NS, 'delete', 'pod', pod.name, '--wait=false', ...(gracePeriod === undefined ? [] : [`--grace-period=${gracePeriod}`])]);
  return waitFor(async () => { const next = await servingPod(name); return next.uid === pod.uid ? undefined : next; }, { what: `a new serving pod of ${name}`, timeoutMs: 90_000 });
}

async function events(regarding: string, reason: string): Promise<string[]> {
  const notes = await cluster.kubectlOk(['-n', NS, 'get', 'events.events.k8s.io', `--field-selector=regarding.name=${regarding},reason=${reason}`, '-o', 'jsonpath={range .items[*]}{.note}{"\\n"}{end}']);
  return notes.split('\n').filter(Boolean);
}

/**
 * Runs a short-lived Pod that mounts the operator's backup volume and returns its output (when `output` is true): how
 * a user (or this test) inspects the stored dumps with kubectl alone. Paths are under /backup/<namespace>/<postgresql>/.
 */
let volumeRuns = 0;
async function inBackupVolume(command: string[], output = true): Promise<string> {
  const name = `backup-volume-${volumeRuns++}`;
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      restartPolicy: 'Never',
      securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'shell', image: 'busybox:1.37', command, securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, volumeMounts: [{ name: 'backups', mountPath: '/backup' }] }],
      volumes: [{ name: 'backups', persistentVolumeClaim: { claimName: 'postgresql-operator-backups' } }],
    },
  };
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'apply', '-f', '-'], { input: JSON.stringify(pod) });
  const phase = await waitFor(async () => { const p = await jsonpath(`pod/${name}`, '{.status.phase}', OPERATOR_NS); return p === 'Succeeded' || p === 'Failed' ? p : undefined; }, { what: `pod ${name} to finish` });
  // testkit's log server fails on an empty log, so a command that prints nothing is not asked for its output.
  const logs = output || phase !== 'Succeeded' ? await cluster.kubectlOk(['-n', OPERATOR_NS, 'logs', name]) : '';
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'delete', 'pod', name, '--wait=false']);
  if (phase !== 'Succeeded') throw new Error(`${command.join(' ')} failed: ${logs}`);
  return logs;
}
// -a: the output is never empty (see inBackupVolume).
const storedFiles = async (postgresql: string): Promise<string[]> =>
  (await inBackupVolume(['ls', '-1a', `/backup/${NS}/${postgresql}`])).split('\n').filter((f) => f !== '' && f !== '.' && f !== '..').sort();

let scraperToken: string | undefined;
/** The S3 store's secret, which must appear nowhere the operator writes (set by the S3 stories). */
let s3SecretAccessKey = '';
/** A ServiceAccount token bound to the operator's metrics-reader ClusterRole, as Prometheus' would be. */
async function metricsScraperToken(): Promise<string> {
  if (scraperToken !== undefined) return scraperToken;
  const scraper = `system:serviceaccount:${OPERATOR_NS}:e2e-metrics-scraper`;
  await cluster.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'e2e-metrics-scraper', namespace: OPERATOR_NS } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'e2e-metrics-scraper' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'postgresql-operator-metrics-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'e2e-metrics-scraper', namespace: OPERATOR_NS }] },
  ] }) });
  // The operator remembers a denial for 10 s: scrape only once the API server's authorizer sees the binding.
  await waitFor(async () => (await cluster.kubectl(['auth', 'can-i', 'get', '/metrics', `--as=${scraper}`])).code === 0, { what: `${scraper} to be allowed to get /metrics` });
  scraperToken = (await cluster.kubectlOk(['-n', OPERATOR_NS, 'create', 'token', 'e2e-metrics-scraper'])).trim();
  return scraperToken;
}

/**
 * A Pod's metrics on 8443, as Prometheus would scrape them: HTTPS with a bearer token bound to the metrics-reader
 * ClusterRole, the self-signed certificate not verified (the ServiceMonitors' insecureSkipVerify). From a curl Pod
 * inside the cluster where this machine has no route to Pods.
 */
async function scrapeMetrics(ip: string): Promise<string> {
  return scrapePodMetrics(cluster, ip, await metricsScraperToken());
}
/** The leader's metrics: the other replica runs no reconciles, so its backup metrics are empty. */
const operatorMetrics = async (): Promise<string> => scrapeMetrics(await jsonpath(`pod/${await leaderPod()}`, '{.status.podIP}', OPERATOR_NS));
/** The backup store service's metrics (its volume, and the requests of Jobs and the operator). */
const backupStoreMetrics = async (): Promise<string> =>
  scrapeMetrics(await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pods', '-l', 'app.kubernetes.io/component=backup-store', '-o', 'jsonpath={.items[0].status.podIP}']));
function metricValue(metrics: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = metrics.split('\n').find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('the operator runs as installed: from its image', async () => {
  expect(await cluster.containerRuntimes(OPERATOR_NS, 'control-plane=controller-manager')).toEqual([cluster.imageRuntime]);
});

describe('the seed sample', () => {
  test('a new pod is restored before it is labelled appReady=ok and before the Service sends it traffic', async () => {
    diagnoseOnFailure();
    // The seed article's manifest, unchanged.
    await cluster.kubectlOk(['-n', NS, 'apply', '-f', join(REPOSITORY_ROOT, 'deploy/postgresql-operator/samples/db-for-foo.yaml')]);
    retireWhenDone('foodb');
    const first = await servingPod('foodb');
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'postgresql/foodb', '--timeout=60s']);
    expect(await condition('foodb', 'Restored')).toMatchObject({ status: 'True', reason: 'NoBackup' });
    await waitFor(async () => (await serviceAddresses('foodb')).includes(first.ip), { what: 'the Service to send traffic to the first pod' });

    // As in the article: rows written through the Service's endpoint.
    const [address] = await serviceAddresses('foodb');
    await queryPod(cluster, { ...first, ip: address ?? '' }, SEED_LOGIN, "CREATE TABLE hoge (id SERIAL, name TEXT); INSERT INTO hoge (name) VALUES ('foo'); INSERT INTO hoge (name) VALUES ('bar');");
    await takeBackup('foodb-before-restart', 'foodb');

    // Watch the new pod and the Service's endpoints while the old pod goes.
    const podStates = new Map<string, { ip: string; labelled: boolean; ready: boolean }>();
    let readyAddresses = new Set<string>();
    const checks: Promise<void>[] = [];
    // What the watches saw that must not happen; asserted at the end (an assertion in a stream callback has no test to fail).
    const violations: string[] = [];
    const seen = { readyUnlabelled: false, unlabelledAnsweredDirectly: false, labelledWithRows: false, endpointWithRows: false };
    const rowsOf = async (ip: string): Promise<string[]> =>
      (await queryPod<{ name: string }>(cluster, { namespace: NS, name: newPodName(ip), ip }, SEED_LOGIN, 'SELECT name FROM hoge ORDER BY id')).map((r) => r.name);
    const newPodName = (ip: string): string => [...podStates.entries()].find(([, s]) => s.ip === ip)?.[0] ?? '';
    const pods = await watchObjects(cluster, ['-n', NS, 'pods', '-l', 'exp.wheel.jp/postgresql=foodb'], (obj) => {
      const pod = obj as Pod;
      const { name, uid } = pod.metadata;
      const ip = pod.status.podIP ?? '';
      if (uid === first.uid || ip === '') return;
      const before = podStates.get(name);
      const state = { ip, labelled: pod.metadata.labels?.appReady === 'ok', ready: isReady(pod) };
      podStates.set(name, state);
      if (state.ready && !state.labelled && !seen.readyUnlabelled) {
        seen.readyUnlabelled = true;
        // Ready but not yet labelled: connect straight to the pod. The EndpointSlice is read first and the database
        // second, so if the address was already an endpoint then, the rows must be there by the query.
        checks.push((async () => {
          const endpoints = await serviceAddresses('foodb');
          const [row] = await queryPod<{ restored: boolean }>(cluster, { namespace: NS, name, ip }, SEED_LOGIN, "SELECT to_regclass('public.hoge') IS NOT NULL AS restored");
          seen.unlabelledAnsweredDirectly = true;
          if (endpoints.includes(ip) && row?.restored !== true) violations.push(`${ip} was an endpoint while its database was not restored`);
        })().catch((error: unknown) => { violations.push(`pod ${name} was Ready but did not answer on its address: ${String(error)}`); }));
      }
      if (state.labelled && before?.labelled !== true) {
        checks.push(rowsOf(ip).then((rows) => {
          if (rows.join() !== 'foo,bar') violations.push(`pod ${name} was labelled appReady=ok with rows [${rows.join()}]`);
          seen.labelledWithRows = true;
        }, (error: unknown) => { violations.push(`pod ${name} was labelled appReady=ok but its rows could not be read: ${String(error)}`); }));
      }
    });
    const slices = await watchObjects(cluster, ['-n', NS, 'endpointslices', '-l', 'kubernetes.io/service-name=foodb'], (slice) => {
      const next = new Set(readyAddressesOf([slice as Slice]));
      for (const ip of next) {
        if (readyAddresses.has(ip) || ip === first.ip) continue;
        // The first moment a client could be sent to the new pod: its rows must already be there. (Whether the pod
        // watch has shown its label yet is not asked: two watch streams are not ordered against each other.)
        checks.push(rowsOf(ip).then((rows) => {
          if (rows.join() !== 'foo,bar') violations.push(`${ip} became an endpoint with rows [${rows.join()}]`);
          seen.endpointWithRows = true;
        }, (error: unknown) => { violations.push(`${ip} became an endpoint but its rows could not be read: ${String(error)}`); }));
      }
      readyAddresses = next;
    });
    try {
      const second = await deletePodAndWaitForSuccessor('foodb', first);
      await waitFor(() => violations.length > 0 || (seen.endpointWithRows && seen.labelledWithRows), { what: 'the new pod to be an endpoint with its rows', timeoutMs: 30_000 });
      await Promise.all(checks);
      expect(violations).toEqual([]);
      expect(seen.readyUnlabelled).toBe(true);
      expect(seen.unlabelledAnsweredDirectly).toBe(true);
      expect(await condition('foodb', 'Restored')).toMatchObject({ status: 'True', reason: 'Restored' });
      expect((await condition('foodb', 'Restored'))?.message).toContain(`pod ${second.name} was restored from backup foodb-before-restart`);
      expect(await events('foodb', 'Restored')).toEqual([expect.stringContaining('foodb-before-restart')]);
    } finally {
      await Promise.all([pods.stop(), slices.stop()]);
    }
  });
});

describe('bad input and faults', () => {
  test('a missing Secret gives Ready=False SecretNotFound, and the database starts once the Secret exists', async () => {
    diagnoseOnFailure();
    await apply(database('nosecret', {}, false));
    retireWhenDone('nosecret');
    const ready = await waitFor(async () => { const c = await condition('nosecret', 'Ready'); return c?.reason === 'SecretNotFound' ? c : undefined; }, { what: 'Ready=False SecretNotFound' });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('Secret nosecret-password (spec.password) was not found');
    expect(await cluster.kubectl(['-n', NS, 'get', 'deployment', 'nosecret'])).toMatchObject({ code: 1 });
    await apply(database('nosecret'));
    await servingPod('nosecret');
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=condition=Ready', 'postgresql/nosecret', '--timeout=30s']);
  });

  test('an invalid cron expression gives BackupSucceeded=False InvalidSchedule while the database serves', async () => {
    diagnoseOnFailure();
    // Five fields, so the API server accepts it; minute 61 does not exist.
    await apply(database('badcron', { backup: { schedule: '61 * * * *' } }));
    retireWhenDone('badcron');
    const backup = await waitFor(async () => { const c = await condition('badcron', 'BackupSucceeded'); return c?.reason === 'InvalidSchedule' ? c : undefined; }, { what: 'BackupSucceeded=False InvalidSchedule' });
    expect(backup.status).toBe('False');
    expect(backup.message).toContain('"61 * * * *"');
    await servingPod('badcron');
  });

  test('data on a volume is served as it is, and a wrong password keeps a new pod out of the Service with a clear condition', async () => {
    diagnoseOnFailure();
    await apply(database('durable', { storage: { size: '1Gi' }, backup: { suspend: true } }));
    retireWhenDone('durable');
    const pod = await servingPod('durable');
    await queryPod(cluster, pod, loginOf('durable'), "CREATE TABLE items (body text); INSERT INTO items VALUES ('kept')");
    // A backup exists, but the volume holds newer data: that is what the next pod serves, not the backup.
    await takeBackup('durable-1', 'durable');
    await queryPod(cluster, pod, loginOf('durable'), "INSERT INTO items VALUES ('newer')");
    const next = await deletePodAndWaitForSuccessor('durable', pod);
    expect((await queryPod<{ body: string }>(cluster, next, loginOf('durable'), 'SELECT body FROM items')).map((r) => r.body)).toEqual(['kept', 'newer']);
    expect(await condition('durable', 'Restored')).toMatchObject({ status: 'True', reason: 'DataPresent' });

    // PostgreSQL keeps the password it was initialised with: a changed Secret no longer opens the database.
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'durable-password' }, stringData: { postgresql_password: 'not-the-password' } }));
    await cluster.kubectlOk(['-n', NS, 'delete', 'pod', next.name, '--wait=false']);
    const ready = await waitFor(async () => { const c = await condition('durable', 'Ready'); return c?.reason === 'AuthenticationFailed' ? c : undefined; }, { what: 'Ready=False AuthenticationFailed', timeoutMs: 90_000 });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('the password in Secret durable-password is not accepted for user app');
    expect(ready.message).not.toContain('not-the-password');
    expect(await serviceAddresses('durable')).toEqual([]);
    expect(await events('durable', 'AuthenticationFailed')).not.toEqual([]);

    await apply(database('durable', { storage: { size: '1Gi' }, backup: { suspend: true } }));
    const restored = await servingPod('durable');
    expect(await queryPod<{ n: number }>(cluster, restored, loginOf('durable'), 'SELECT count(*)::int AS n FROM items')).toEqual([{ n: 2 }]);
    // Three database pods start one after the other, and a backup Job runs: on a busy kind node each takes up to a minute.
  }, 300_000);

  test('a corrupted newest backup is never restored: the previous verified one is, with an Event', async () => {
    diagnoseOnFailure();
    await apply(database('corrupt', { backup: { suspend: true } }));
    const pod = await servingPod('corrupt');
    await queryPod(cluster, pod, loginOf('corrupt'), "CREATE TABLE items (body text); INSERT INTO items VALUES ('one')");
    await takeBackup('corrupt-1', 'corrupt');
    await queryPod(cluster, pod, loginOf('corrupt'), "INSERT INTO items VALUES ('two')");
    const newest = await takeBackup('corrupt-2', 'corrupt');
    // Damage the newest dump in the store: cut off its last 100 bytes.
    await inBackupVolume(['truncate', '-s', `${(newest.status?.sizeBytes ?? 0) - 100}`, `/backup/${NS}/corrupt/corrupt-2.dump`], false);

    const next = await deletePodAndWaitForSuccessor('corrupt', pod);
    expect((await queryPod<{ body: string }>(cluster, next, loginOf('corrupt'), 'SELECT body FROM items')).map((r) => r.body)).toEqual(['one']);
    expect((await condition('corrupt', 'Restored'))?.message).toContain('restored from backup corrupt-1');
    expect((await events('corrupt', 'BackupCorrupted')).join('\n')).toMatch(/backup corrupt-2 was not restored \(Corrupted\).*restored the older backup corrupt-1 instead/);
    expect((await backupOf('corrupt-2')).status).toMatchObject({ phase: 'Completed', verified: false });
    // Two database pods start one after the other, two backup Jobs run, and a Pod truncates the dump in the volume.
  }, 300_000);

  test('a database killed in the middle of a backup publishes nothing, and the next backup succeeds', async () => {
    diagnoseOnFailure();
    await apply(database('crash', { backup: { suspend: true } }));
    retireWhenDone('crash');
    const pod = await servingPod('crash');
    await whilePgDumpWaits('crash', pod, { backup: 'crash-1', databaseDies: true }, async () => {
      await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Running', 'postgresqlbackup/crash-1', '--timeout=30s']);
      const next = deletePodAndWaitForSuccessor('crash', pod, 1);
      await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Failed', 'postgresqlbackup/crash-1', '--timeout=60s']);
      await next;
    });
    const failed = await backupOf('crash-1');
    expect(failed.status?.sha256).toBeUndefined();
    expect(failed.status?.error).toContain('pg_dump');
    expect(await condition('crash', 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'BackupFailed' });
    expect(metricValue(await operatorMetrics(), 'postgresql_backup_last_failure_timestamp_seconds', { namespace: NS, postgresql: 'crash' })).toBeGreaterThan(0);

    await takeBackup('crash-2', 'crash');
    expect(await storedFiles('crash')).toEqual(['crash-2.dump', 'crash-2.manifest.json']);
    await waitFor(async () => (await condition('crash', 'BackupSucceeded'))?.status === 'True', { what: 'BackupSucceeded=True' });
    const metrics = await operatorMetrics();
    expect(metricValue(metrics, 'postgresql_backup_last_failure_timestamp_seconds', { namespace: NS, postgresql: 'crash' })).toBe(0);
    expect(metricValue(metrics, 'postgresql_backup_last_success_timestamp_seconds', { namespace: NS, postgresql: 'crash' })).toBeGreaterThan(0);
    // Two database pods start one after the other, two backup Jobs run, and a Pod lists the volume.
  }, 300_000);
});

describe('backups', () => {
  test('retention deletes old scheduled backups, objects and files together, and keeps the newest verified one', async () => {
    diagnoseOnFailure();
    await apply(database('retain', { backup: { suspend: true, retention: { keepLast: 1, keepFailed: 0 } } }));
    retireWhenDone('retain');
    await servingPod('retain');
    const storeBefore = await backupStoreMetrics();
    for (const name of ['retain-1', 'retain-2', 'retain-3']) await takeBackup(name, 'retain', 'Scheduled');
    await waitFor(async () => (await jsonpath('postgresqlbackups', '{.items[*].metadata.name}')).split(' ').filter((n) => n.startsWith('retain-')).join(' ') === 'retain-3', { what: 'only retain-3 to be left' });
    expect(await storedFiles('retain')).toEqual(['retain-3.dump', 'retain-3.manifest.json']);
    // What the backup store service reports to Prometheus: the Jobs' three writes and their bytes, retention's deletes
    // (other stories' backups may run meanwhile, so at least these), and its volume's space.
    const storeAfter = await backupStoreMetrics();
    const grew = (name: string, labels: Record<string, string> = {}): number => (metricValue(storeAfter, name, labels) ?? 0) - (metricValue(storeBefore, name, labels) ?? 0);
    expect(grew('postgresql_backup_store_requests_total', { operation: 'write', code: '200' })).toBeGreaterThanOrEqual(3);
    expect(grew('postgresql_backup_store_requests_total', { operation: 'delete', code: '204' })).toBeGreaterThanOrEqual(2);
    expect(grew('postgresql_backup_store_received_bytes_total')).toBeGreaterThanOrEqual(3 * ((await backupOf('retain-3')).status?.sizeBytes ?? 1));
    const available = metricValue(storeAfter, 'postgresql_backup_store_volume_available_bytes') ?? 0;
    expect(available).toBeGreaterThan(0);
    expect(available).toBeLessThanOrEqual(metricValue(storeAfter, 'postgresql_backup_store_volume_size_bytes') ?? 0);
    expect(await events('retain', 'BackupDeleted')).toHaveLength(2);
    // Each ran as a Job (writing to the volume through the backup store service), gone with its Pod once recorded.
    expect(await events('retain-3', 'BackupJobCreated')).toEqual([expect.stringMatching(/^backup Job retain-3-backup started against pod retain-/)]);
    await waitFor(async () => (await backupJobObjects('retain')) === '', { what: 'the completed backup Jobs and their Pods to be deleted' });
    // Three backup Jobs one after the other, each starting a Pod.
  }, 300_000);

  test('the schedule creates one PostgreSQLBackup per slot, named after the slot, and reports the next one', async () => {
    diagnoseOnFailure();
    // Made in beforeAll; its backups every minute are not needed past this story.
    retireWhenDone('sched');
    const scheduled = await waitFor(async () => {
      const list = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'postgresqlbackups', '-l', 'exp.wheel.jp/postgresql=sched', '-o', 'json'])) as { items: Backup[] };
      return list.items.find((b) => b.status?.phase === 'Completed');
    }, { what: 'a completed scheduled backup of sched', timeoutMs: 120_000 });
    expect(scheduled.metadata.name).toMatch(/^sched-\d{12}$/);
    expect(scheduled.spec.trigger).toBe('Scheduled');
    expect(await events(scheduled.metadata.name, 'BackupJobCreated')).toHaveLength(1);
    expect(await jsonpath('postgresql/sched', '{.status.nextScheduledBackupTime}')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    expect(metricValue(await operatorMetrics(), 'postgresql_backup_schedule_period_seconds', { namespace: NS, postgresql: 'sched' })).toBe(60);
  });

  test('deleting a PostgreSQL takes a final backup first and keeps the backups', async () => {
    diagnoseOnFailure();
    const pod = await servingPod('corrupt');
    await queryPod(cluster, pod, loginOf('corrupt'), "INSERT INTO items VALUES ('last words')");
    await cluster.kubectlOk(['-n', NS, 'delete', 'postgresql/corrupt', '--timeout=60s']);
    const list = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'postgresqlbackups', '-o', 'json'])) as { items: Backup[] };
    list.items = list.items.filter((b) => b.spec.postgresql === 'corrupt');
    const final = list.items.find((b) => b.spec.trigger === 'Final');
    expect(final?.status).toMatchObject({ phase: 'Completed', verified: true });
    expect(list.items.map((b) => b.metadata.name)).toEqual(expect.arrayContaining(['corrupt-1', 'corrupt-2']));
    expect(await storedFiles('corrupt')).toContain(`${final?.metadata.name ?? ''}.dump`);
  });

  test('with onDelete.backups: Delete, deleting a PostgreSQL deletes its backups, objects and files', async () => {
    diagnoseOnFailure();
    await apply(database('ephemeral', { backup: { suspend: true, onDelete: { finalBackup: false, backups: 'Delete' } } }));
    await servingPod('ephemeral');
    await takeBackup('ephemeral-1', 'ephemeral');
    expect(await storedFiles('ephemeral')).toEqual(['ephemeral-1.dump', 'ephemeral-1.manifest.json']);
    await cluster.kubectlOk(['-n', NS, 'delete', 'postgresql/ephemeral', '--timeout=60s']);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=delete', 'postgresqlbackup/ephemeral-1', '--timeout=30s']);
    expect(await storedFiles('ephemeral')).toEqual([]);
    // A database pod starts, a backup Job runs, and Pods look into the volume twice.
  }, 240_000);
});

/** Names of the backup Jobs of a PostgreSQL and of their Pods, one per line ('' when there are none). */
async function backupJobObjects(postgresql: string): Promise<string> {
  return (await cluster.kubectlOk(['-n', NS, 'get', 'jobs,pods', '-l', `exp.wheel.jp/backup-of=${postgresql}`, '-o', 'name'])).trim();
}

describe('backups in S3', () => {
  const BUCKET = 'pg-backups';
  const database_ = 's3db';
  let s3: RunningSeaweedFs;
  beforeAll(async () => {
    // On kind, pods reach this machine only at the kind network's gateway (kind/e2e.sh passes it).
    s3 = await startSeaweedFs({ bucket: BUCKET, host: process.env.E2E_HOST_ADDRESS ?? '127.0.0.1' });
    s3SecretAccessKey = s3.credentials.secretAccessKey;
  });
  afterAll(async () => {
    // Undefined when start-up failed: that failure is the one to report.
    await (s3 as RunningSeaweedFs | undefined)?.stop();
  });

  const credentialsSecret = (secretAccessKey: string): string =>
    JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's3-credentials' }, stringData: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey } });
  /** Object names under the database's prefix, and the multipart uploads not completed or aborted. */
  const bucketContents = async (): Promise<{ keys: string[]; incompleteUploads: number }> => {
    const listing = await (await s3.request({ method: 'GET', path: `/${BUCKET}`, query: { 'list-type': '2', prefix: `${NS}/${database_}/` } })).text();
    const uploads = await (await s3.request({ method: 'GET', path: `/${BUCKET}`, query: { uploads: '' } })).text();
    return {
      keys: [...listing.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => (m[1] ?? '').slice(`${NS}/${database_}/`.length)).sort(),
      incompleteUploads: [...uploads.matchAll(/<UploadId>/g)].length,
    };
  };

  test('backups go to the bucket over verified TLS, and a new pod is restored from it before it serves', async () => {
    diagnoseOnFailure();
    await apply(credentialsSecret(s3.credentials.secretAccessKey));
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's3-ca' }, data: { 'ca.crt': s3.caPem } }));
    await apply(database(database_, {
      backup: {
        suspend: true,
        s3: { bucket: BUCKET, endpoint: s3.httpsEndpoint, region: s3.region, forcePathStyle: true, credentialsSecret: 's3-credentials', caBundle: { configMapKeyRef: { name: 's3-ca', key: 'ca.crt' } } },
      },
    }));
    const pod = await servingPod(database_);
    await queryPod(cluster, pod, loginOf(database_), "CREATE TABLE items (body text); INSERT INTO items VALUES ('in the bucket')");
    const backup = await takeBackup(`${database_}-1`, database_);
    expect(backup.status?.s3).toMatchObject({ bucket: BUCKET, endpoint: s3.httpsEndpoint, credentialsSecret: 's3-credentials' });
    expect(await bucketContents()).toEqual({ keys: [`${database_}-1.dump`, `${database_}-1.manifest.json`], incompleteUploads: 0 });
    // It ran as a Job, which is gone with its Pod once the backup is recorded.
    expect(await events(`${database_}-1`, 'BackupJobCreated')).toEqual([expect.stringMatching(new RegExp(`^backup Job ${database_}-1-backup started against pod ${database_}-`))]);
    await waitFor(async () => (await backupJobObjects(database_)) === '', { what: 'the completed backup Job and its Pod to be deleted' });

    const next = await deletePodAndWaitForSuccessor(database_, pod);
    expect((await queryPod<{ body: string }>(cluster, next, loginOf(database_), 'SELECT body FROM items')).map((r) => r.body)).toEqual(['in the bucket']);
    expect((await condition(database_, 'Restored'))?.message).toContain(`restored from backup ${database_}-1`);
    // Two database pods start one after the other: on a busy kind node each takes up to a minute.
  }, 240_000);

  test('wrong credentials fail a backup with a message that names the key, nothing partial is left, and the next backup succeeds', async () => {
    diagnoseOnFailure();
    // The last story of this database.
    retireWhenDone(database_);
    await apply(credentialsSecret('not-the-secret-access-key'));
    await apply(JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: `${database_}-2` }, spec: { postgresql: database_ } }));
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Failed', `postgresqlbackup/${database_}-2`, '--timeout=60s']);
    const failed = await backupOf(`${database_}-2`);
    expect(failed.status?.error).toContain(s3.credentials.accessKeyId);
    expect(failed.status?.error).not.toContain('not-the-secret-access-key');
    expect(await condition(database_, 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'BackupFailed' });
    expect(await bucketContents()).toEqual({ keys: [`${database_}-1.dump`, `${database_}-1.manifest.json`], incompleteUploads: 0 });
    // The failed Job stays (spec.backup.job.ttlSecondsAfterFinished) so its log tells the same story.
    expect(await jsonpath(`job/${database_}-2-backup`, '{.status.conditions[?(@.type=="Failed")].status}')).toBe('True');
    expect(await cluster.kubectlOk(['-n', NS, 'logs', `job/${database_}-2-backup`])).toContain(s3.credentials.accessKeyId);
    // Its Pod ran under a ServiceAccount that can do nothing and has no token.
    expect(await jsonpath(`job/${database_}-2-backup`, '{.spec.template.spec.serviceAccountName} {.spec.template.spec.automountServiceAccountToken}')).toBe(`${database_}-backup false`);

    await apply(credentialsSecret(s3.credentials.secretAccessKey));
    await takeBackup(`${database_}-3`, database_);
    expect((await bucketContents()).keys).toEqual([`${database_}-1.dump`, `${database_}-1.manifest.json`, `${database_}-3.dump`, `${database_}-3.manifest.json`]);
  });

  test('a running backup whose store can no longer be built fails saying why, instead of being retried forever', async () => {
    diagnoseOnFailure();
    // A backup of a PostgreSQL that does not exist waits, Pending; then it is made to look like one that ran as a Job
    // into a bucket whose credentials Secret is gone, which is what a new leader finds after such a deletion.
    await apply(JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: 'orphan-1' }, spec: { postgresql: 'orphan' } }));
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Pending', 'postgresqlbackup/orphan-1', '--timeout=60s']);
    const status = { phase: 'Running', startTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), s3: { bucket: BUCKET, endpoint: s3.endpoint, forcePathStyle: true, credentialsSecret: 'deleted-credentials' } };
    await cluster.kubectlOk(['-n', NS, 'patch', 'postgresqlbackup/orphan-1', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Failed', 'postgresqlbackup/orphan-1', '--timeout=90s']);
    expect((await backupOf('orphan-1')).status?.error).toBe(
      `its store cannot be used to check what was published, so it does not count: Secret deleted-credentials (spec.backup.s3.credentialsSecret) was not found in namespace ${NS}`,
    );
  });

  test('a running backup whose store keeps refusing fails with the store\'s reason after 5 checks, instead of being retried forever', async () => {
    diagnoseOnFailure();
    // What a new leader finds after the credentials Secret was changed to a key the bucket refuses: the Secret exists,
    // so the store can be built, but it never answers. Until recorded, a Running backup holds up its database's backups.
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'refused-credentials' }, stringData: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: 'not-the-secret-access-key' } }));
    await apply(JSON.stringify({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: 'orphan-2' }, spec: { postgresql: 'orphan' } }));
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Pending', 'postgresqlbackup/orphan-2', '--timeout=60s']);
    const status = { phase: 'Running', startTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), s3: { bucket: BUCKET, endpoint: s3.endpoint, forcePathStyle: true, credentialsSecret: 'refused-credentials' } };
    await cluster.kubectlOk(['-n', NS, 'patch', 'postgresqlbackup/orphan-2', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    // Five checks, 30 s apart: two minutes, then the verdict.
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Failed', 'postgresqlbackup/orphan-2', '--timeout=240s']);
    expect((await backupOf('orphan-2')).status?.error).toMatch(new RegExp(
      `^its store refused 5 times, 30 s apart, to say what was published, so it does not count: S3 at ${s3.endpoint} .*${s3.credentials.accessKeyId}`,
    ));
  }, 300_000);

  test('an S3 outage while a backup runs fails it with a clear condition, lists nothing partial, and the next backup succeeds', async () => {
    diagnoseOnFailure();
    // The store, through a forwarder this test can cut: while cut, connections are reset and new ones refused.
    const forwarder = await TcpForwarder.start(process.env.E2E_HOST_ADDRESS ?? '127.0.0.1', new URL(s3.endpoint));
    try {
      await apply(database('outage', { backup: { suspend: true, s3: { bucket: BUCKET, endpoint: forwarder.url('http'), region: s3.region, forcePathStyle: true, credentialsSecret: 's3-credentials' } } }));
      retireWhenDone('outage');
      const pod = await servingPod('outage');
      // The Job has reached the store (it sweeps leftovers first) and pg_dump waits: now the store goes away.
      await whilePgDumpWaits('outage', pod, { backup: 'outage-1', setup: "INSERT INTO items VALUES ('after the outage')" }, () => forwarder.cut());
      await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Failed', 'postgresqlbackup/outage-1', '--timeout=180s']);
      const failed = await backupOf('outage-1');
      expect(failed.status?.error).toContain(`cannot reach S3 at ${forwarder.url('http')}`);
      expect(failed.status?.sha256).toBeUndefined();
      expect(await condition('outage', 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'BackupFailed' });

      await forwarder.restore();
      await takeBackup('outage-2', 'outage');
      const listing = await (await s3.request({ method: 'GET', path: `/${BUCKET}`, query: { 'list-type': '2', prefix: `${NS}/outage/` } })).text();
      expect([...listing.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]).sort()).toEqual([`${NS}/outage/outage-2.dump`, `${NS}/outage/outage-2.manifest.json`]);
      // What the outage left half-uploaded, the next backup cleared.
      const uploads = await (await s3.request({ method: 'GET', path: `/${BUCKET}`, query: { uploads: '' } })).text();
      expect([...uploads.matchAll(/<UploadId>/g)]).toHaveLength(0);
    } finally {
      await forwarder.cut();
    }
  }, 360_000);

  test('a truncated dump in the bucket is never restored: the previous verified one is, with an Event', async () => {
    diagnoseOnFailure();
    await apply(database('s3trunc', { backup: { suspend: true, s3: { bucket: BUCKET, endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentialsSecret: 's3-credentials' } } }));
    const pod = await servingPod('s3trunc');
    await queryPod(cluster, pod, loginOf('s3trunc'), "CREATE TABLE items (body text); INSERT INTO items VALUES ('one')");
    await takeBackup('s3trunc-1', 's3trunc');
    await queryPod(cluster, pod, loginOf('s3trunc'), "INSERT INTO items VALUES ('two')");
    await takeBackup('s3trunc-2', 's3trunc');
    // Damage the newest dump behind the operator's back: the object loses its last 100 bytes.
    const path = `/${BUCKET}/${NS}/s3trunc/s3trunc-2.dump`;
    const dump = Buffer.from(await (await s3.request({ method: 'GET', path })).arrayBuffer());
    await s3.request({ method: 'PUT', path, body: dump.subarray(0, dump.length - 100) });

    const next = await deletePodAndWaitForSuccessor('s3trunc', pod);
    expect((await queryPod<{ body: string }>(cluster, next, loginOf('s3trunc'), 'SELECT body FROM items')).map((r) => r.body)).toEqual(['one']);
    expect((await condition('s3trunc', 'Restored'))?.message).toContain('restored from backup s3trunc-1');
    expect((await events('s3trunc', 'BackupCorrupted')).join('\n')).toMatch(/backup s3trunc-2 was not restored \(Corrupted\).*restored the older backup s3trunc-1 instead/);
    expect((await backupOf('s3trunc-2')).status).toMatchObject({ phase: 'Completed', verified: false });
    // Two database pods start one after the other, and two backup Jobs run.
  }, 300_000);
});

describe('restore drills', () => {
  /** Asks for a drill now (exp.wheel.jp/restore-check) and returns the result recorded on `backup`. */
  async function drillNow(postgresql: string, backup: string, request: string): Promise<RestoreCheck> {
    await cluster.kubectlOk(['-n', NS, 'annotate', `postgresql/${postgresql}`, `exp.wheel.jp/restore-check=${request}`, '--overwrite']);
    return waitFor(async () => {
      const check = (await backupOf(backup)).status?.restoreCheck;
      return check?.request === request ? check : undefined;
    }, { what: `the restore drill ${request} of ${backup}`, timeoutMs: 180_000 });
  }
  const scratchPods = async (postgresql: string): Promise<string> =>
    (await cluster.kubectlOk(['-n', NS, 'get', 'pods', '-l', `exp.wheel.jp/restore-check-of=${postgresql}`, '-o', 'name'])).trim();

  /**
   * A real Prometheus that scrapes the operator as its ServiceMonitor does and evaluates the shipped PrometheusRules
   * (deploy/postgresql-operator/prometheus/rules.yaml) every second: what pages the person on call. Only where this
   * machine reaches Pod addresses, as for the metrics checks (kind/e2e.sh adds that route where it may).
   */
  let prometheus: OperatorScrape | undefined;
  beforeAll(async () => {
    if (cluster.podNetworkFromHost) prometheus = await scrapeOperatorWithPrometheus(cluster, 'postgresql-operator');
  }, 120_000);
  afterAll(async () => {
    await prometheus?.stop();
  });
  const notRestorable = async (postgresql: string): Promise<PrometheusAlert[]> =>
    (await prometheus?.prometheus.alerts() ?? []).filter((a) => a.labels.alertname === 'PostgreSQLBackupNotRestorable' && a.labels.namespace === NS && a.labels.postgresql === postgresql);
  /**
   * PostgreSQLBackupNotRestorable for `postgresql` fires in the real Prometheus. The rule has no `for:` (a failed drill
   * is already a proven failure, not a blip), so it fires at the first evaluation that sees the failure timestamp;
   * nothing is pending first.
   */
  async function expectNotRestorableFiring(postgresql: string): Promise<void> {
    if (prometheus === undefined) return;
    const alert = await waitFor(async () => (await notRestorable(postgresql)).find((a) => a.state === 'firing'), { what: `PostgreSQLBackupNotRestorable to fire for ${postgresql}`, timeoutMs: 30_000 });
    expect(alert.labels).toMatchObject({ severity: 'critical', namespace: NS, postgresql });
    expect(alert.annotations.summary).toBe(`The last restore drill of ${NS}/${postgresql} failed`);
  }
  /** ...and stops once a drill passes (the failure timestamp goes back to 0). */
  async function expectNotRestorableResolved(postgresql: string): Promise<void> {
    if (prometheus === undefined) return;
    await waitFor(async () => (await notRestorable(postgresql)).length === 0, { what: `PostgreSQLBackupNotRestorable of ${postgresql} to resolve`, timeoutMs: 30_000 });
  }

  test('a drill passes on a good backup and fails on a check whose answer differs, without touching the live database', async () => {
    diagnoseOnFailure();
    // Scheduled drills once a year: this story asks for its drills on demand.
    await apply(database('drill', { backup: { suspend: true, verify: { schedule: '0 0 1 1 *', check: { query: 'SELECT count(*) FROM items', expect: '2' } } } }));
    retireWhenDone('drill');
    // Drills are owed from now: the condition says none has a result yet, and the pending gauge counts from now.
    await waitFor(async () => (await condition('drill', 'BackupRestorable'))?.reason === 'NotYetChecked', { what: 'BackupRestorable=Unknown NotYetChecked' });
    expect(metricValue(await operatorMetrics(), 'postgresql_restore_check_pending_since_timestamp_seconds', { namespace: NS, postgresql: 'drill' })).toBeGreaterThan(0);
    const pod = await servingPod('drill');
    await queryPod(cluster, pod, loginOf('drill'), "CREATE TABLE items (body text); INSERT INTO items VALUES ('a'), ('b')");
    await takeBackup('drill-1', 'drill');

    expect(await drillNow('drill', 'drill-1', 'first')).toMatchObject({ result: 'Passed', trigger: 'OnDemand', output: '1 table, 2 rows: public.items 2; check query answered "2"' });
    await waitFor(async () => (await condition('drill', 'BackupRestorable'))?.status === 'True', { what: 'BackupRestorable=True' });
    expect((await condition('drill', 'BackupRestorable'))?.message).toMatch(/^backup drill-1 was restored into a scratch pod at /);
    expect(await jsonpath('postgresql/drill', '{.status.lastRestoreCheckSuccess}')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await waitFor(async () => (await scratchPods('drill')) === '', { what: 'the scratch pod to be deleted' });
    // The live database served all along, from the same pod, with its own rows only.
    expect((await servingPod('drill')).uid).toBe(pod.uid);
    expect(await queryPod<{ n: number }>(cluster, pod, loginOf('drill'), 'SELECT count(*)::int AS n FROM items')).toEqual([{ n: 2 }]);

    await queryPod(cluster, pod, loginOf('drill'), "INSERT INTO items VALUES ('c')");
    await takeBackup('drill-2', 'drill');
    expect(await drillNow('drill', 'drill-2', 'second')).toMatchObject({ result: 'Failed', reason: 'CheckMismatch', error: 'the check query answered "3", expected "2"' });
    await waitFor(async () => (await condition('drill', 'BackupRestorable'))?.reason === 'CheckMismatch', { what: 'BackupRestorable=False CheckMismatch' });
    expect(await condition('drill', 'BackupRestorable')).toMatchObject({ status: 'False', message: expect.stringMatching(/^backup drill-2 failed its restore drill at .*: the check query answered "3", expected "2"$/) as string });
    expect(await events('drill', 'RestoreCheckFailed')).toHaveLength(1);
    const metrics = await operatorMetrics();
    expect(metricValue(metrics, 'postgresql_restore_check_last_failure_timestamp_seconds', { namespace: NS, postgresql: 'drill' })).toBeGreaterThan(0);
    expect(metricValue(metrics, 'postgresql_restore_check_last_success_timestamp_seconds', { namespace: NS, postgresql: 'drill' })).toBeGreaterThan(0);
    expect(metricValue(metrics, 'postgresql_restore_checks_total', { result: 'failed' })).toBeGreaterThanOrEqual(1);
    // Drills have results now: nothing is pending (the gauge is set with the status that carries the condition).
    expect(metricValue(metrics, 'postgresql_restore_check_pending_since_timestamp_seconds', { namespace: NS, postgresql: 'drill' })).toBeUndefined();
    await expectNotRestorableFiring('drill');
    await waitFor(async () => (await scratchPods('drill')) === '', { what: 'the scratch pod to be deleted' });

    // The check moved to a ConfigMap that does not exist yet: no scratch pod, an Event saying what to create; once it
    // exists, the drill asked for runs with its check.
    await cluster.kubectlOk(['-n', NS, 'patch', 'postgresql/drill', '--type=merge', '-p', JSON.stringify({ spec: { backup: { verify: { check: { query: null, expect: null, configMapRef: { name: 'drill-check' } } } } } })]);
    await cluster.kubectlOk(['-n', NS, 'annotate', 'postgresql/drill', 'exp.wheel.jp/restore-check=third', '--overwrite']);
    const notRunnable = await waitFor(async () => (await events('drill', 'RestoreCheckNotRunnable'))[0], { what: 'a RestoreCheckNotRunnable Event' });
    expect(notRunnable).toContain(`ConfigMap drill-check (spec.backup.verify.check.configMapRef) in namespace ${NS} was not found: create it with data.query (the SQL query) and data.expect`);
    expect(await scratchPods('drill')).toBe('');
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'drill-check' }, data: { query: 'SELECT count(*) FROM items', expect: '3' } }));
    const third = await waitFor(async () => {
      const check = (await backupOf('drill-2')).status?.restoreCheck;
      return check?.request === 'third' ? check : undefined;
    }, { what: 'the drill asked for once the ConfigMap exists', timeoutMs: 180_000 });
    expect(third).toMatchObject({ result: 'Passed', output: '1 table, 3 rows: public.items 3; check query answered "3"' });
    await expectNotRestorableResolved('drill');
  }, 600_000);

  test('a drill fails on a dump corrupted in the store, which stops counting as verified; the next drill takes the previous backup', async () => {
    diagnoseOnFailure();
    await apply(database('drillbad', { backup: { suspend: true, verify: { schedule: '0 0 1 1 *' } } }));
    retireWhenDone('drillbad');
    const pod = await servingPod('drillbad');
    await queryPod(cluster, pod, loginOf('drillbad'), "CREATE TABLE items (body text); INSERT INTO items VALUES ('one')");
    await takeBackup('drillbad-1', 'drillbad');
    const newest = await takeBackup('drillbad-2', 'drillbad');
    // Damaged at rest after it was verified, as a disk or a bucket can do: the drill is what finds it.
    await inBackupVolume(['truncate', '-s', `${(newest.status?.sizeBytes ?? 0) - 100}`, `/backup/${NS}/drillbad/drillbad-2.dump`], false);

    expect(await drillNow('drillbad', 'drillbad-2', 'first')).toMatchObject({ result: 'Failed', reason: 'BackupCorrupted' });
    expect((await backupOf('drillbad-2')).status).toMatchObject({ phase: 'Completed', verified: false, error: expect.stringMatching(/^found damaged by a restore drill: /) as string });
    await waitFor(async () => (await condition('drillbad', 'BackupRestorable'))?.reason === 'BackupCorrupted', { what: 'BackupRestorable=False BackupCorrupted' });
    await expectNotRestorableFiring('drillbad');
    // The next drill restores the newest backup still verified.
    expect(await drillNow('drillbad', 'drillbad-1', 'second')).toMatchObject({ result: 'Passed', output: '1 table, 1 row: public.items 1' });
    await waitFor(async () => (await condition('drillbad', 'BackupRestorable'))?.status === 'True', { what: 'BackupRestorable=True on drillbad-1' });
    await expectNotRestorableResolved('drillbad');
    await waitFor(async () => (await scratchPods('drillbad')) === '', { what: 'the scratch pod to be deleted' });
  }, 480_000);
});

describe('secrecy', () => {
  test('no password appears in the operator\'s log, in Events, in statuses or in the objects it made', async () => {
    diagnoseOnFailure();
    const passwords = ['mypassword', 'not-the-password', 'not-the-secret-access-key', ...(s3SecretAccessKey === '' ? [] : [s3SecretAccessKey]), ...['sched', 'nosecret', 'badcron', 'durable', 'corrupt', 'crash', 'retain', 'ephemeral', 's3db', 's3trunc'].map((name) => `${name}-secret`)];
    // Both operator replicas' logs (kubectl logs on the Deployment shows one Pod's), and the backup store service's.
    const logs = [
      await cluster.kubectlOk(['-n', OPERATOR_NS, 'logs', '-l', 'control-plane=controller-manager', '--prefix', '--tail=-1']),
      await cluster.kubectlOk(['-n', OPERATOR_NS, 'logs', '-l', 'app.kubernetes.io/component=backup-store', '--prefix', '--tail=-1']),
    ].join('\n');
    const events = await cluster.kubectlOk(['-n', NS, 'get', 'events.events.k8s.io', '-o', 'json']);
    const objects = await cluster.kubectlOk(['-n', NS, 'get', 'postgresqls,postgresqlbackups,deployments,services,pods', '-o', 'json']);
    for (const [what, text] of [['operator log', logs], ['Events', events], ['objects', objects]] as const) {
      expect(passwords.filter((password) => text.includes(password)), what).toEqual([]);
    }
  });
});

describe('least privilege for Secrets', () => {
  test('the operator reads only the Secrets it is pointed at, by name: no list, no watch; it writes only its backup store certificate', async (context) => {
    const permissions = await operatorPermissions(cluster, 'postgresql-operator');
    if (permissions === undefined) {
      context.skip('this cluster keeps no audit log this machine can read (a kind cluster from kindest/node)');
      return;
    }
    const ownCertificate = (r: { namespace?: string; name?: string }): boolean => r.namespace === OPERATOR_NS && r.name === 'postgresql-operator-backup-store-tls';
    const secretRequests = permissions.requests.filter((r) => r.resource === 'secrets');
    // The certificate it keeps for the backup store service: made once (create names the Secret in its body).
    expect(secretRequests.filter((r) => r.verb !== 'get' && !(r.verb === 'create' && r.namespace === OPERATOR_NS))).toEqual([]);
    const secretReads = secretRequests.filter((r) => r.verb === 'get' && !ownCertificate(r));
    // Every PostgreSQL of this spec, the seed's included, names a Secret "<name>-password" in its own namespace, the
    // ones with a bucket name s3-credentials, and two backups' statuses name deleted-credentials (a Secret since gone)
    // and refused-credentials (a key the bucket refuses).
    const named = new Set(['s3-credentials', 'deleted-credentials', 'refused-credentials']);
    expect(secretReads.filter((r) => r.namespace !== NS || !((r.name ?? '').endsWith('-password') || named.has(r.name ?? '')))).toEqual([]);
  });
});

describeOperatorChecks({
  cluster: () => cluster,
  operator: 'postgresql-operator',
  ownCounter: 'postgresql_backups_total',
  // The backup store service's ServiceMonitor: the volume's space, and the writes of the backup Jobs.
  alsoScrapes: [
    { service: 'postgresql-operator-backup-store', series: 'postgresql_backup_store_volume_available_bytes' },
    { service: 'postgresql-operator-backup-store', series: 'postgresql_backup_store_requests_total{operation="write",code="200"}' },
  ],
  mayBeUnused: {
    'update postgresqls/finalizers.exp.wheel.jp': 'needed only where OwnerReferencesPermissionEnforcement admission is on (OpenShift); nothing is written to it',
    'update postgresqlbackups/finalizers.exp.wheel.jp': 'the same, for the backup Jobs a PostgreSQLBackup owns',
    'get jobs.batch': 'read only when a create finds the Job made already, or the cache has not yet seen a Job just created',
    'update secrets': 'only when the backup store service\'s certificate is replaced, a month before it expires',
    'patch events.events.k8s.io': 'repeats fold into an EventSeries by PATCH at most every 30 s; this run may not wait for one',
  },
});

// Last: it stops the leading replica, and the checks above read the leader's metrics.
describe('a highly available operator', () => {
  const BUCKET = 'pg-takeover';
  let s3: RunningSeaweedFs;
  beforeAll(async () => {
    s3 = await startSeaweedFs({ bucket: BUCKET, host: process.env.E2E_HOST_ADDRESS ?? '127.0.0.1' });
  });
  afterAll(async () => {
    await (s3 as RunningSeaweedFs | undefined)?.stop();
  });

  const operatorPods = async (): Promise<{ name: string; ready: boolean }[]> => {
    const pods = JSON.parse(await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pods', '-l', 'control-plane=controller-manager', '-o', 'json'])) as {
      items: { metadata: { name: string; deletionTimestamp?: string }; status?: { conditions?: { type: string; status: string }[] } }[];
    };
    return pods.items
      .filter((pod) => pod.metadata.deletionTimestamp === undefined)
      .map((pod) => ({ name: pod.metadata.name, ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false }));
  };

  test('the leader stopped while a backup Job runs: the other replica records the backup, once', async () => {
    diagnoseOnFailure();
    // As installed: two replicas.
    expect(await jsonpath(OPERATOR, '{.spec.replicas}', OPERATOR_NS)).toBe('2');
    await waitFor(async () => { const pods = await operatorPods(); return pods.length === 2 && pods.every((p) => p.ready); }, { what: 'two ready operator replicas', timeoutMs: 120_000 });
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'takeover-s3' }, stringData: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: s3.credentials.secretAccessKey } }));
    await apply(database('takeover', { backup: { suspend: true, s3: { bucket: BUCKET, endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentialsSecret: 'takeover-s3' } } }));
    const pod = await servingPod('takeover');
    // The leader goes while the Job's pg_dump waits for the lock.
    await whilePgDumpWaits('takeover', pod, { backup: 'takeover-1', setup: "INSERT INTO items VALUES ('taken over')" }, async () => {
      const jobUid = await jsonpath('job/takeover-1-backup', '{.metadata.uid}');
      const oldLeader = await leaderPod();
      await cluster.kubectlOk(['-n', OPERATOR_NS, 'delete', 'pod', oldLeader, '--wait=false']);
      const newLeader = await waitFor(async () => { const leader = await leaderPod(); return leader !== '' && leader !== oldLeader ? leader : undefined; }, { what: 'another replica to take the Lease', timeoutMs: 120_000 });
      expect((await operatorPods()).map((p) => p.name)).toContain(newLeader);
      // The Job ran on through the change of leaders: the same one.
      expect(await jsonpath('job/takeover-1-backup', '{.metadata.uid}')).toBe(jobUid);
    });
    await cluster.kubectlOk(['-n', NS, 'wait', '--for=jsonpath={.status.phase}=Completed', 'postgresqlbackup/takeover-1', '--timeout=120s']);
    const backup = await backupOf('takeover-1');
    expect(backup.status).toMatchObject({ phase: 'Completed', verified: true });
    // Started once, recorded once, one dump in the bucket, nothing half-uploaded.
    expect(await events('takeover-1', 'BackupJobCreated')).toHaveLength(1);
    expect(await events('takeover-1', 'BackupCompleted')).toHaveLength(1);
    const listing = await (await s3.request({ method: 'GET', path: `/${BUCKET}`, query: { 'list-type': '2', prefix: `${NS}/takeover/` } })).text();
    expect([...listing.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]).sort()).toEqual([`${NS}/takeover/takeover-1.dump`, `${NS}/takeover/takeover-1.manifest.json`]);
    const uploads = await (await s3.request({ method: 'GET', path: `/${BUCKET}`, query: { uploads: '' } })).text();
    expect([...uploads.matchAll(/<UploadId>/g)]).toHaveLength(0);
    await waitFor(async () => (await backupJobObjects('takeover')) === '', { what: 'the recorded backup Job and its Pod to be deleted' });
  }, 360_000);
});
