// One backup as the operator runs it: a Job running the operator image's `backup-job` entry point, on the bench's
// cluster, to the bucket or to the backup store service. Timed from the create to the Job's Complete condition, as the
// operator sees it.
import { waitFor, type TestCluster } from '@k8s-operators/testkit';
import type { PostgreSQL } from '../src/api/postgresql-resource.ts';
import type { PostgreSQLBackup } from '../src/api/postgresql-backup-resource.ts';
import { resolvePostgreSQLSpec } from '../src/api/resolve-spec.ts';
import { desiredBackupJob, desiredBackupServiceAccount, type BackupJobTarget } from '../src/desired/desired-backup-job.ts';

/** The image the deploy/ manifests install; the cluster's node runs it from the engine or as its built entry point. */
const OPERATOR_IMAGE = 'ghcr.io/k8s-operators/postgresql-operator:0.1.0';

export interface BenchJobTarget {
  /** The bench database: its pod address, user, database, and `<postgresql>-password` Secret in `default`. */
  postgresql: string;
  podIP: string;
  user: string;
  database: string;
  store: BackupJobTarget;
}

async function kubectlOk(cluster: TestCluster, args: string[], options: { input?: string } = {}): Promise<string> {
  const result = await cluster.kubectl(args, options);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

function objects(target: BenchJobTarget, backupName: string): { postgresql: PostgreSQL; backup: PostgreSQLBackup } {
  const postgresql: PostgreSQL = {
    apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL',
    metadata: { name: target.postgresql, namespace: 'default', uid: 'bench' },
    spec: { db: target.database, user: target.user, password: `${target.postgresql}-password` },
  };
  const backup: PostgreSQLBackup = {
    apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup',
    metadata: { name: backupName, namespace: 'default', uid: 'bench' },
    spec: { postgresql: target.postgresql, trigger: 'OnDemand' },
  };
  return { postgresql, backup };
}

/** Runs one backup Job and returns its seconds; fails with the Job Pod's log when the backup fails. */
export async function runBackupJob(cluster: TestCluster, target: BenchJobTarget, backupName: string): Promise<number> {
  const { postgresql, backup } = objects(target, backupName);
  const job = desiredBackupJob({ backup, postgresql, spec: resolvePostgreSQLSpec(postgresql.spec), target: target.store, podIP: target.podIP, image: OPERATOR_IMAGE });
  // No owners here: the garbage collector would delete objects whose owner does not exist.
  const account = desiredBackupServiceAccount(postgresql);
  delete account.metadata?.ownerReferences;
  delete job.metadata?.ownerReferences;
  const name = job.metadata?.name ?? '';
  await kubectlOk(cluster, ['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [account] }) });
  const started = performance.now();
  await kubectlOk(cluster, ['create', '-f', '-'], { input: JSON.stringify(job) });
  const outcome = await waitFor(async () => {
    const conditions = await kubectlOk(cluster, ['get', `job/${name}`, '-o', 'jsonpath={range .status.conditions[?(@.status=="True")]}{.type} {end}']);
    return /\bComplete\b/.test(conditions) ? 'Complete' : /\bFailed\b/.test(conditions) ? 'Failed' : undefined;
  }, { what: `backup Job ${name} to finish`, timeoutMs: 30 * 60_000, intervalMs: 50 });
  const seconds = (performance.now() - started) / 1000;
  const log = outcome === 'Failed' ? await kubectlOk(cluster, ['logs', `job/${name}`]) : '';
  await kubectlOk(cluster, ['delete', `job/${name}`, '--cascade=background', '--wait=false']);
  if (outcome === 'Failed') throw new Error(`backup Job ${name} failed: ${log}`);
  return seconds;
}
