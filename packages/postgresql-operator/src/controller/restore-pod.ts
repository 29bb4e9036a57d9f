import type { V1Pod } from '@kubernetes/client-node';
import { Resources, isNotFound, requiredName, requiredNamespace, type ReconcileContext } from '@k8s-operators/controller-core';
import { PostgreSQLBackupRef } from '../api/postgresql-refs.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { connectionParameters } from '../postgres/connection.ts';
import { restoreLatestBackup } from '../restore/restore-latest.ts';
import { damagedStatus } from '../desired/desired-backup-status.ts';
import { databaseProblem } from './database-errors.ts';
import { identitySource, optionalIdentity } from './backup-identity.ts';
import { podAddress } from './database-pods.ts';
import { APP_READY_LABEL, APP_READY_VALUE } from '../desired/labels.ts';
import type { OperatorContext } from './operator-context.ts';
import { recordRestore } from '../metrics/postgresql-metrics.ts';
import { restoreFailureVerdict, restoreVerdict, type RestoreVerdict } from './restore-verdict.ts';

export interface PodRestore {
  postgresql: PostgreSQL;
  spec: ResolvedPostgreSQLSpec;
  /** The PostgreSQL's backups, as this reconcile listed them. */
  backups: readonly PostgreSQLBackup[];
  /** A live pod without `appReady=ok`. */
  pod: V1Pod;
  password: string;
  signal: AbortSignal;
  log: ReconcileContext['log'];
}

export interface PodRestoreOutcome {
  verdict: RestoreVerdict;
  /** The PostgreSQL's backups after the restore: those it found damaged as they were marked. */
  backups: readonly PostgreSQLBackup[];
}

/**
 * Makes a new pod's database fit to serve, then labels the pod `appReady=ok` (which puts it behind the Service): an
 * empty database is restored from the newest intact backup, one that holds data is left as it is, and a brand-new
 * database with no backup at all serves at once. A restore that fails leaves the pod unlabelled: no client reaches it.
 *
 * The restore connects straight to the pod's address, since the Service does not select the pod yet.
 */
export async function restorePod(context: OperatorContext, request: PodRestore): Promise<PodRestoreOutcome> {
  const { postgresql, spec, pod, password, signal, log } = request;
  const podName = pod.metadata?.name ?? '';
  const namespace = requiredNamespace(postgresql);
  const connection = connectionParameters({ podIP: podAddress(pod) ?? '', database: spec.db, user: spec.user, password });
  let verdict: RestoreVerdict;
  try {
    const target = await context.stores.lookup(namespace, spec.backup.s3);
    if (!target.ok) throw new Error(`the backup store in spec.backup.s3 cannot be used: ${target.message}`);
    const result = await restoreLatestBackup({
      store: target.store, namespace, postgresql: requiredName(postgresql), connection, role: spec.user, signal, tools: context.tools,
      ...optionalIdentity(identitySource(context.manager.client, namespace, spec.backup.encryption)),
    });
    verdict = restoreVerdict(podName, result);
  } catch (error) {
    if (signal.aborted) throw error;
    verdict = restoreFailureVerdict(podName, databaseProblem(error, { secret: spec.password, user: spec.user }));
  }
  log.info({ pod: podName, outcome: verdict.condition.reason, serve: verdict.serve }, verdict.condition.message);
  recordRestore(context.metrics, verdict.metric);
  for (const event of verdict.events) context.events.event(postgresql, { ...event, action: 'Restore', related: pod });
  const marked = await markDamaged(context, namespace, verdict.corrupted);
  if (verdict.serve) await labelAppReady(context, pod);
  return { verdict, backups: request.backups.map((backup) => marked.get(backup.metadata.name ?? '') ?? backup) };
}

/**
 * Backups found damaged keep their object (its error explains) but stop counting as verified. Returns the objects as
 * written, by name, so what this reconcile decides next (retention above all) does not count them as verified.
 */
async function markDamaged(context: OperatorContext, namespace: string, damaged: RestoreVerdict['corrupted']): Promise<Map<string, PostgreSQLBackup>> {
  const marked = new Map<string, PostgreSQLBackup>();
  for (const { backup: name, message } of damaged) {
    const backup = await context.manager.reader.get(PostgreSQLBackupRef, { namespace, name });
    if (backup === undefined || backup.status?.verified === false) continue;
    marked.set(name, await context.statusWriter.write(PostgreSQLBackupRef, backup, damagedStatus(backup, `found damaged before a restore: ${message}`)));
  }
  return marked;
}

/**
 * The label goes on this pod only: the patch carries its UID, which the API server refuses to change, so a pod of
 * the same name that replaced it in the meantime is not labelled by mistake. Through the manager, so the next
 * reconcile reads the pod labelled even before the cache has the label: examining it again would find the data just
 * restored and replace the Restored verdict with "serves the data it already holds".
 */
async function labelAppReady(context: OperatorContext, pod: V1Pod): Promise<void> {
  const { uid } = pod.metadata ?? {};
  try {
    await context.manager.mergePatch(Resources.Pod, pod, { metadata: { uid, labels: { [APP_READY_LABEL]: APP_READY_VALUE } } });
  } catch (error) {
    // Gone meanwhile: its successor will be examined in turn.
    if (!isNotFound(error)) throw error;
  }
}
