import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import {
  Resources,
  generationChanged,
  isAlreadyExists,
  or,
  ownershipConflict,
  requiredName,
  requiredNamespace,
  type Controller,
  type Predicate,
  type ReconcileContext,
  type ReconcileResult,
  type ResourceRef,
} from '@k8s-operators/controller-core';
import { PostgreSQLConditionType } from '../api/postgresql-conditions.ts';
import { PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { resolvePostgreSQLSpec, type ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { backupsToDelete } from '../retention/backup-retention.ts';
import { databaseBackupFigures } from './backup-figures.ts';
import { backupSchedulePlan, type SchedulePlan } from '../desired/backup-schedule-plan.ts';
import { PASSWORD_RECHECK_MS, readDatabasePassword } from './database-password.ts';
import { podsAwaitingRestore, servingPod } from './database-pods.ts';
import { desiredBackup } from '../desired/desired-backup.ts';
import { desiredDataClaim } from '../desired/desired-data-claim.ts';
import { desiredDeployment } from '../desired/desired-deployment.ts';
import { desiredService } from '../desired/desired-service.ts';
import { desiredStatus, type ConditionOutcome } from '../desired/desired-status.ts';
import { INSTANCE_LABEL } from '../desired/labels.ts';
import { instanceKey, nameProblem } from '../desired/object-names.ts';
import { FIELD_MANAGER, type OperatorContext } from './operator-context.ts';
import { backupsOf, POD_SCOPE, podsOf } from './operator-indexes.ts';
import { ensurePostgreSQLFinalizer, finalizePostgreSQL } from './postgresql-finalizer.ts';
import { removeDatabaseGauges, setDatabaseGauges } from '../metrics/postgresql-metrics.ts';
import { RestoreBackoff } from './restore-backoff.ts';
import { CLEARS_BY_ITSELF } from './database-errors.ts';
import { restorePod } from './restore-pod.ts';

/** While an object we would own belongs to someone else, look again this often (its events do not reach us). */
const CONFLICT_RECHECK_MS = 30_000;
/** Wake a little after a schedule slot, so the slot is at or before "now" when the reconcile runs. */
const SLOT_MARGIN_MS = 500;

/**
 * What this process keeps about the restores of one PostgreSQL's pods. Everything else a reconcile needs from the one
 * before — the latest scheduled slot it created a backup for, the verdict on the pod examined last — is in the status,
 * which `manager.reader` shows with this process's own writes.
 */
interface RestoreMemory {
  uid: string;
  /**
   * When to try a failed restore again. A back-off, like the work queue's: a new leader that starts it over only tries
   * once more at once.
   */
  backoff: RestoreBackoff;
}

/** Deletion sets deletionTimestamp without touching the spec; the finalizer must see it. */
const deletionStarted: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.deletionTimestamp === undefined && newObj.metadata?.deletionTimestamp !== undefined,
};

/**
 * Registers the PostgreSQL controller. For each PostgreSQL it applies the Service, the Deployment (and the data claim
 * when `spec.storage` is set), restores each new pod before labelling it `appReady=ok`, creates the scheduled
 * PostgreSQLBackups, applies retention, keeps status and metrics, and on deletion takes the final backup.
 */
export function setupPostgreSQLController(context: OperatorContext): Controller {
  const { manager, events, statusWriter, metrics } = context;
  // Per PostgreSQL (key and UID, so one created again under the same name starts afresh).
  const restores = new Map<string, RestoreMemory>();

  const reconcile = async (ctx: ReconcileContext): Promise<ReconcileResult | undefined> => {
    const cached = await manager.reader.get(PostgreSQLRef, ctx.request);
    if (cached === undefined) {
      restores.delete(ctx.request.key);
      removeDatabaseGauges(metrics, { namespace: ctx.request.namespace ?? '', postgresql: ctx.request.name });
      return undefined;
    }
    // Once per reconcile: the spec resolved (defaults, the parsed schedule, the S3 store) and the backups listed. The
    // steps below take these; a backup this reconcile marks damaged replaces its listed version.
    const spec = resolvePostgreSQLSpec(cached.spec);
    const key = instanceKey(cached);
    let backups: readonly PostgreSQLBackup[] = await backupsOf(manager, key);
    if (cached.metadata.deletionTimestamp !== undefined) return finalizePostgreSQL(context, { postgresql: cached, spec, backups }, ctx);
    const now = context.now();
    const namespace = requiredNamespace(cached);
    const uid = cached.metadata.uid ?? '';
    const remembered = restores.get(key);
    const memory: RestoreMemory = remembered?.uid === uid ? remembered : { uid, backoff: new RestoreBackoff() };
    restores.set(key, memory);
    // The reader shows this process's own status writes, so the slot served last and the verdict on the pod examined
    // last are in `cached` even when its watch has not delivered them yet.
    const schedule = backupSchedulePlan(cached, spec.backup, now);
    /** Learned in this reconcile, for its status writes. */
    let restored: ConditionOutcome | undefined;
    let servedSlot: Date | undefined;

    const writeStatus = async (postgresql: PostgreSQL, ready: ConditionOutcome): Promise<PostgreSQL> => {
      const outcome = {
        ready, backups, schedule,
        ...(restored === undefined ? {} : { restored }),
        ...(servedSlot === undefined ? {} : { servedSlot }),
      };
      const { status, changed } = desiredStatus(postgresql, outcome, context.now());
      setDatabaseGauges(metrics, { namespace, postgresql: requiredName(postgresql) }, databaseBackupFigures(backups, schedule));
      return changed ? statusWriter.write(PostgreSQLRef, postgresql, status) : postgresql;
    };
    const blocked = async (reason: string, message: string, result?: ReconcileResult): Promise<ReconcileResult | undefined> => {
      events.event(cached, { type: 'Warning', reason, action: 'Reconcile', note: message });
      await writeStatus(cached, { status: 'False', reason, message });
      return result;
    };

    const badName = nameProblem(cached);
    if (badName !== undefined) return blocked('InvalidName', badName);
    const postgresql = await ensurePostgreSQLFinalizer(context, cached);
    if (schedule.state === 'invalid') events.event(postgresql, { type: 'Warning', reason: 'InvalidSchedule', action: 'Schedule', note: schedule.message });

    const name = requiredName(postgresql);
    const claim = desiredDataClaim(postgresql, spec);
    const current = {
      deployment: await manager.reader.get(Resources.Deployment, { namespace, name }),
      service: await manager.reader.get(Resources.Service, { namespace, name }),
      claim: claim === undefined ? undefined : await manager.reader.get(Resources.PersistentVolumeClaim, { namespace, name: claim.metadata?.name ?? '' }),
    };
    const conflict = Object.values(current).map((obj) => ownershipConflict(obj, postgresql)).find((c) => c !== undefined);
    if (conflict !== undefined) return blocked('Conflict', conflict, { requeueAfterMs: CONFLICT_RECHECK_MS });

    const apply = <T extends KubernetesObject>(ref: ResourceRef<T>, desired: KubernetesObject, existing: T | undefined): Promise<T> =>
      manager.applyOwned(ref, desired as never, { owner: postgresql, fieldManager: FIELD_MANAGER, current: existing });
    await apply(Resources.Service, desiredService(postgresql), current.service);
    if (claim !== undefined) await apply(Resources.PersistentVolumeClaim, claim, current.claim);

    const password = await readDatabasePassword(manager.client, namespace, spec.password);
    // Without its password a new pod could not start (the kubelet reports a missing Secret only on the pod): look for
    // the Secret again soon and leave a running database alone.
    const recheck = { requeueAfterMs: PASSWORD_RECHECK_MS };
    if (!password.ok && current.deployment === undefined) return blocked(password.reason, password.message, recheck);
    await apply(Resources.Deployment, desiredDeployment(postgresql, spec), current.deployment);
    if (!password.ok) return blocked(password.reason, password.message, recheck);

    const pods = await podsOf(manager, key);
    memory.backoff.retain(new Set(pods.map((pod) => pod.metadata?.uid ?? '')));
    let serving = servingPod(pods);
    let retryRestoreMs: number | undefined;
    // The newest version this reconcile knows: a status written while restoring is the base of the next one.
    let latest = postgresql;
    if (serving === undefined) {
      const restore = await restoreAwaitingPod(postgresql, podsAwaitingRestore(pods)[0], {
        spec, backups, password: password.password, inputs: restoreInputs(password.secretVersion, backups), memory, writeStatus, ctx,
      });
      serving = restore.serving;
      retryRestoreMs = restore.retryMs;
      restored = restore.restored;
      latest = restore.postgresql ?? postgresql;
      backups = restore.backups ?? backups;
    }

    if (serving !== undefined) servedSlot = await createDueBackup(postgresql, schedule, ctx);
    await applyRetention(postgresql, spec.backup.retention, backups, ctx);
    const failedRestore = retryRestoreMs === undefined ? undefined : (restored ?? storedCondition(latest, PostgreSQLConditionType.Restored));
    await writeStatus(latest, readyCondition(postgresql, spec, serving, failedRestore));
    const nextSlotMs = schedule.state === 'active' ? schedule.next.getTime() - context.now().getTime() + SLOT_MARGIN_MS : undefined;
    const requeueAfterMs = [retryRestoreMs, nextSlotMs].filter((ms): ms is number => ms !== undefined).reduce<number | undefined>((a, b) => (a === undefined ? b : Math.min(a, b)), undefined);
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs: Math.max(requeueAfterMs, 1) };
  };

  /**
   * Restores the pod awaiting it (if any and if its back-off allows): the pod it returns as serving is labelled now;
   * `retryMs` is set while a failed restore waits to be tried again; `restored` is the verdict when a pod was examined,
   * `postgresql` the object as the status write announcing the examination stored it, and `backups` the backups with
   * those the examination found damaged as it marked them.
   */
  const restoreAwaitingPod = async (
    postgresql: PostgreSQL,
    pod: V1Pod | undefined,
    request: {
      spec: ResolvedPostgreSQLSpec;
      backups: readonly PostgreSQLBackup[];
      password: string;
      /** What the restore depends on (see restoreInputs). */
      inputs: string;
      memory: RestoreMemory;
      writeStatus: (postgresql: PostgreSQL, ready: ConditionOutcome) => Promise<PostgreSQL>;
      ctx: ReconcileContext;
    },
  ): Promise<{ serving?: V1Pod; retryMs?: number; restored?: ConditionOutcome; postgresql?: PostgreSQL; backups?: readonly PostgreSQLBackup[] }> => {
    if (pod === undefined) return {};
    const { memory, inputs, ctx } = request;
    const uid = pod.metadata?.uid ?? '';
    const waitMs = memory.backoff.waitMs(uid, inputs, Date.now());
    if (waitMs > 0) return { retryMs: waitMs };
    const message = `examining the database of pod ${pod.metadata?.name ?? ''} before it receives traffic`;
    const restoring = await request.writeStatus(postgresql, { status: 'False', reason: 'Restoring', message });
    const { verdict, backups } = await restorePod(context, {
      postgresql: restoring, spec: request.spec, backups: request.backups, pod, password: request.password, signal: ctx.signal, log: ctx.log,
    });
    const examined = { restored: verdict.condition, postgresql: restoring, backups };
    if (!verdict.serve) {
      const clearsByItself = CLEARS_BY_ITSELF.has(verdict.condition.reason);
      return { ...examined, retryMs: memory.backoff.failed(uid, inputs, Date.now(), { clearsByItself }) };
    }
    memory.backoff.succeeded(uid);
    return { ...examined, serving: pod };
  };

  /**
   * Creates the PostgreSQLBackup of an owed slot; only while a pod serves, so a backup never waits for a database that
   * is not there (the slot stays owed until one serves). Its name is fixed per slot: a retry finds it exists. Returns
   * the slot served, for `status.lastScheduledBackupTime`.
   */
  const createDueBackup = async (postgresql: PostgreSQL, schedule: SchedulePlan, ctx: ReconcileContext): Promise<Date | undefined> => {
    if (schedule.state !== 'active' || schedule.due === undefined) return undefined;
    const { slot, missed, backupName } = schedule.due;
    try {
      await manager.client.create(PostgreSQLBackupRef, desiredBackup(postgresql, backupName, 'Scheduled'));
      ctx.log.info({ backup: backupName, slot: slot.toISOString(), missed }, 'scheduled backup created');
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    if (missed > 0) {
      events.event(postgresql, { type: 'Warning', reason: 'MissedSchedule', action: 'Schedule', note: `${missed} earlier schedule slots were missed (operator down or database not serving); took one backup, ${backupName}, for the latest` });
    }
    return slot;
  };

  /** Deletes the scheduled backups the retention policy no longer keeps; their finalizer deletes the stored dumps. */
  const applyRetention = async (
    postgresql: PostgreSQL,
    retention: ResolvedPostgreSQLSpec['backup']['retention'],
    backups: readonly PostgreSQLBackup[],
    ctx: ReconcileContext,
  ): Promise<void> => {
    // Only an object stored before the API server checked maxAge has one that cannot be read; retention stops there.
    if (!retention.ok) throw new Error(retention.message);
    const namespace = requiredNamespace(postgresql);
    for (const verdict of backupsToDelete(backups, retention.policy, context.now())) {
      await manager.client.delete(PostgreSQLBackupRef, { namespace, name: verdict.name });
      ctx.log.info({ backup: verdict.name, reason: verdict.reason }, 'retention deleted a backup');
      events.event(postgresql, { type: 'Normal', reason: 'BackupDeleted', action: 'Retention', note: `deleted backup ${verdict.name} and its stored dump: ${verdict.message}` });
    }
  };

  const postgresqlOfLabelled = (obj: KubernetesObject): string[] => {
    const pg = obj.metadata?.labels?.[INSTANCE_LABEL];
    return pg === undefined ? [] : [`${obj.metadata?.namespace ?? ''}/${pg}`];
  };
  const postgresqlOfBackup = (backup: { metadata?: { namespace?: string }; spec: { postgresql: string } }): string[] =>
    [`${backup.metadata?.namespace ?? ''}/${backup.spec.postgresql}`];

  return manager
    .controller('postgresql')
    .for(PostgreSQLRef, { predicates: [or(generationChanged(), deletionStarted)] })
    .owns(Resources.Deployment)
    .owns(Resources.Service)
    .owns(Resources.PersistentVolumeClaim)
    .watches(Resources.Pod, postgresqlOfLabelled, { scope: POD_SCOPE })
    .watches(PostgreSQLBackupRef, postgresqlOfBackup)
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(reconcile);
}

/** A condition of the stored status, as an outcome to write again. */
function storedCondition(postgresql: PostgreSQL, type: string): ConditionOutcome | undefined {
  const condition = postgresql.status?.conditions?.find((c) => c.type === type);
  return condition === undefined ? undefined : { status: condition.status, reason: condition.reason, message: condition.message };
}

/** Ready: a pod serves; else why the pod awaiting a retry failed its restore; else the wait for a pod. */
function readyCondition(postgresql: PostgreSQL, spec: ResolvedPostgreSQLSpec, serving: V1Pod | undefined, failedRestore: ConditionOutcome | undefined): ConditionOutcome {
  if (serving !== undefined) {
    return { status: 'True', reason: 'Serving', message: `pod ${serving.metadata?.name ?? ''} serves database ${spec.db} through Service ${requiredName(postgresql)}` };
  }
  if (failedRestore?.status === 'False') return failedRestore;
  return { status: 'False', reason: 'WaitingForPod', message: 'waiting for the database pod to start and pass its readiness probe' };
}

/** What a restore depends on besides the pod: a change lets a failed restore be tried again at once. */
function restoreInputs(secretVersion: string, backups: readonly PostgreSQLBackup[]): string {
  const versions = backups.map((b) => `${b.metadata.name ?? ''}@${b.metadata.resourceVersion ?? ''}`).sort();
  return [`secret@${secretVersion}`, ...versions].join(',');
}
