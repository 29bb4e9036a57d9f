// One backup as the operator runs it: a Job running the operator image's `backup-job` entry point, on the bench's
// cluster, to the bucket or to the backup store service. Timed from the create to the container seen terminated, when
// the operator records a backup that succeeded, through watches of the Job and its Pod, so the bench itself takes no
// CPU while the Job runs (it polled with a kubectl process every 50 ms before: on two cores that took time from pg_dump
// and was counted against the Job). The time is split at the moments the watches and the backup's manifest show.
import { Resources, type KubeClient, type WatchEvent } from '@k8s-operators/controller-core';
import type { KubernetesObject, V1Job, V1Pod } from '@kubernetes/client-node';
import type { TestCluster } from '@k8s-operators/testkit';
import type { PostgreSQL } from '../src/api/postgresql-resource.ts';
import type { PostgreSQLBackup } from '../src/api/postgresql-backup-resource.ts';
import { resolvePostgreSQLBackup } from '../src/api/resolved-postgresql-backup.ts';
import { resolvePostgreSQLSpec } from '../src/api/resolved-postgresql-spec.ts';
import type { BackupManifest } from '../src/stores/manifest.ts';
import { desiredBackupJob, desiredBackupServiceAccount, type BackupJobTarget } from '../src/desired/desired-backup-job.ts';

/** The image the deploy/ manifests install; the cluster's node runs it from the engine or as its built entry point. */
const OPERATOR_IMAGE = 'ghcr.io/k8s-operators/postgresql-operator:0.1.0';
const NAMESPACE = 'default';

export interface BenchJobTarget {
  /** The bench database: its pod address, user, database, and `<postgresql>-password` Secret in `default`. */
  postgresql: string;
  podIP: string;
  user: string;
  database: string;
  store: BackupJobTarget;
}

/** Seconds of one backup Job, whole and in parts that add up to it. */
export interface JobTiming {
  /** From the create to the container seen terminated: when the operator records the backup. */
  total: number;
  /** From the create to the container running: the Job controller's Pod, then the node starting the container. */
  podStart: number;
  /** From the container running to the backup's start: Node loading the entry point, the store opened, leftovers swept, the server's version read. */
  processStart: number;
  /** The backup itself, pg_dump's start to the verified dump (the manifest's startedAt to its verifiedAt). */
  backup: number;
  /** From the verified dump to the container seen terminated: the manifest written, the process exiting, the node reporting it. */
  finish: number;
  /** From the container seen terminated to the Job's Complete condition, which the operator does not wait for. */
  complete: number;
}

function objects(target: BenchJobTarget, backupName: string): { postgresql: PostgreSQL; backup: PostgreSQLBackup } {
  const postgresql: PostgreSQL = {
    apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL',
    metadata: { name: target.postgresql, namespace: NAMESPACE, uid: 'bench' },
    spec: { db: target.database, user: target.user, password: `${target.postgresql}-password` },
  };
  const backup: PostgreSQLBackup = {
    apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup',
    metadata: { name: backupName, namespace: NAMESPACE, uid: 'bench' },
    spec: { postgresql: target.postgresql, trigger: 'OnDemand' },
  };
  return { postgresql, backup };
}

/** The moments, in `performance.now()` milliseconds, at which the watches first showed each step. */
interface Seen {
  running?: number;
  terminated?: number;
  outcome?: { at: number; condition: 'Complete' | 'Failed' };
}

/** Follows `events` until `done`, calling `onObject` with each object at the moment it arrived. */
async function follow<T extends KubernetesObject>(events: AsyncGenerator<WatchEvent<T>>, onObject: (object: T, at: number) => void): Promise<void> {
  for await (const event of events) {
    if (event.type === 'ADDED' || event.type === 'MODIFIED') onObject(event.object, performance.now());
  }
}

/**
 * Runs one backup Job and returns its timing; fails with the Job Pod's log when the backup fails. `manifestOf` reads
 * the backup's manifest from the store the Job wrote to.
 */
export async function runBackupJob(
  cluster: TestCluster,
  client: KubeClient,
  target: BenchJobTarget,
  backupName: string,
  manifestOf: (key: { namespace: string; postgresql: string; backup: string }) => Promise<BackupManifest | undefined>,
): Promise<JobTiming> {
  const { postgresql, backup } = objects(target, backupName);
  const job = desiredBackupJob({ backup, trigger: resolvePostgreSQLBackup(backup).trigger, postgresql, spec: resolvePostgreSQLSpec(postgresql.spec), target: target.store, podIP: target.podIP, image: OPERATOR_IMAGE });
  // No owners here: the garbage collector would delete objects whose owner does not exist.
  const account = desiredBackupServiceAccount(postgresql);
  delete account.metadata.ownerReferences;
  delete job.metadata.ownerReferences;
  const name = job.metadata.name;
  const applied = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(account) });
  if (applied.code !== 0) throw new Error(`applying the backup Job's ServiceAccount failed: ${applied.stderr}`);

  const stop = new AbortController();
  const seen: Seen = {};
  let finished!: () => void;
  const outcome = new Promise<void>((resolve) => { finished = resolve; });
  const [jobEvents, podEvents] = await Promise.all([
    client.watch(Resources.Job, { namespace: NAMESPACE, fieldSelector: `metadata.name=${name}`, signal: stop.signal }),
    client.watch(Resources.Pod, { namespace: NAMESPACE, labelSelector: `batch.kubernetes.io/job-name=${name}`, signal: stop.signal }),
  ]);
  const watching = Promise.all([
    follow<V1Job>(jobEvents, (object, at) => {
      const condition = object.status?.conditions?.find((c) => c.status === 'True' && (c.type === 'Complete' || c.type === 'Failed'));
      if (condition !== undefined && seen.outcome === undefined) {
        seen.outcome = { at, condition: condition.type as 'Complete' | 'Failed' };
        finished();
      }
    }),
    follow<V1Pod>(podEvents, (object, at) => {
      const state = object.status?.containerStatuses?.[0]?.state;
      if (state?.running !== undefined) seen.running ??= at;
      if (state?.terminated !== undefined) {
        seen.running ??= at;
        seen.terminated ??= at;
      }
    }),
  ]);

  const started = performance.now();
  try {
    await client.create(Resources.Job, job);
    await outcome;
  } finally {
    stop.abort();
    await watching.catch(() => undefined);
  }
  const { outcome: end, running = Number.NaN, terminated = Number.NaN } = seen;
  if (end?.condition !== 'Complete') {
    const pods = await client.list(Resources.Pod, { namespace: NAMESPACE, labelSelector: `batch.kubernetes.io/job-name=${name}` });
    const message = pods.items[0]?.status?.containerStatuses?.[0]?.state?.terminated?.message ?? '(no termination message)';
    throw new Error(`backup Job ${name} failed: ${message}`);
  }
  await client.delete(Resources.Job, { namespace: NAMESPACE, name }, { propagationPolicy: 'Background' });

  const manifest = await manifestOf({ namespace: NAMESPACE, postgresql: target.postgresql, backup: backupName });
  if (manifest === undefined) throw new Error(`backup Job ${name} completed but its manifest is not in the store`);
  // The manifest's times come from the same clock as performance.now(): the Job runs on this machine.
  const toMonotonic = (iso: string): number => Date.parse(iso) - Date.now() + performance.now();
  const backupStart = toMonotonic(manifest.startedAt);
  const verified = toMonotonic(manifest.verifiedAt);
  const seconds = (from: number, to: number): number => (to - from) / 1000;
  return {
    total: seconds(started, terminated),
    podStart: seconds(started, running),
    processStart: seconds(running, backupStart),
    backup: seconds(backupStart, verified),
    finish: seconds(verified, terminated),
    complete: seconds(terminated, end.at),
  };
}
