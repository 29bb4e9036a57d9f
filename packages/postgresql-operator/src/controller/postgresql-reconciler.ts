import type { KubernetesObject, V1Deployment, V1PersistentVolumeClaim, V1Pod, V1Service } from '@kubernetes/client-node';
import {
  Resources,
  isAlreadyExists,
  ownershipConflict,
  requiredName,
  requiredNamespace,
  type DesiredObject,
  type ObjectReconciler,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileResult,
  type ResourceRef,
} from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import { PostgreSQLConditionType } from '../api/postgresql-conditions.ts';
import { PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { resolvePostgreSQLSpec, type ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { backupSchedulePlan, type SchedulePlan } from '../desired/backup-schedule-plan.ts';
import { desiredBackup } from '../desired/desired-backup.ts';
import { desiredDataClaim } from '../desired/desired-data-claim.ts';
import { desiredDeployment } from '../desired/desired-deployment.ts';
import { desiredService } from '../desired/desired-service.ts';
import { desiredPostgreSQLStatus, type ConditionOutcome } from '../desired/desired-postgresql-status.ts';
import { instanceKey, nameProblem } from '../desired/object-names.ts';
import { removeDatabaseGauges, setDatabaseGauges, setStatusGauges } from '../metrics/postgresql-metrics.ts';
import { backupsToDelete } from '../retention/backup-retention.ts';
import { databaseBackupFigures } from './backup-figures.ts';
import { statusFigures } from './status-figures.ts';
import { CLEARS_BY_ITSELF, RETRY_CANNOT_FIX } from './database-errors.ts';
import { PASSWORD_RECHECK_MS, readDatabasePassword, type PasswordLookup } from './database-password.ts';
import { podsAwaitingRestore, servingPod } from './database-pods.ts';
import { FIELD_MANAGER, type OperatorContext } from './operator-context.ts';
import { backupsOf, podsOf } from './operator-indexes.ts';
import { ensurePostgreSQLFinalizer, finalizePostgreSQL } from './postgresql-finalizer.ts';
import { adoptKeptDataClaim } from './kept-data-claim.ts';
import { RestoreBackoff } from './restore-backoff.ts';
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

/**
 * One reconcile's view of a live PostgreSQL: read and resolved once as it starts, and what it learns on the way for
 * its status writes. `backups` is replaced by the versions a restore marked damaged.
 */
interface Pass {
  spec: ResolvedPostgreSQLSpec;
  key: string;
  backups: readonly PostgreSQLBackup[];
  schedule: SchedulePlan;
  memory: RestoreMemory;
  ctx: ReconcileContext;
  restored?: ConditionOutcome;
  servedSlot?: Date;
}

/**
 * How the restore step went: the pod that serves (labelled now); or a failed restore, with the wait before it is
 * retried (none: not until its inputs change, as no retry can fix it).
 */
interface RestoreStep {
  serving?: V1Pod;
  failed?: { retryMs?: number };
  /** The newest version of the PostgreSQL: a status written while restoring is the base of the next. */
  latest: PostgreSQL;
}

/**
 * One PostgreSQL's reconcile, in named steps: apply the Service and data claim, read the password, apply the
 * Deployment, restore each new pod before labelling it `appReady=ok`, create the scheduled backup that is due, apply
 * retention, write status and metrics; on deletion, the finalizer's final backup (postgresql-finalizer.ts).
 */
export class PostgreSQLReconciler implements ObjectReconciler<PostgreSQL> {
  readonly #context: OperatorContext;
  /** Per PostgreSQL (key and UID, so one created again under the same name starts afresh). */
  readonly #restores = new Map<string, RestoreMemory>();

  constructor(context: OperatorContext) {
    this.#context = context;
  }

  gone(request: ReconcileRequest): void {
    this.#restores.delete(request.key);
    removeDatabaseGauges(this.#context.metrics, { namespace: request.namespace ?? '', postgresql: request.name });
  }

  async reconcile(cached: PostgreSQL, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    // Once per reconcile: the spec resolved (defaults, the parsed schedule, the S3 store) and the backups listed.
    const spec = resolvePostgreSQLSpec(cached.spec);
    const key = instanceKey(cached);
    const backups = await backupsOf(this.#context.manager, key);
    if (cached.metadata.deletionTimestamp !== undefined) return finalizePostgreSQL(this.#context, { postgresql: cached, spec, backups }, ctx);
    // The reader shows this process's own status writes, so the slot served last and the verdict on the pod examined
    // last are in `cached` even when its watch has not delivered them yet.
    const pass: Pass = { spec, key, backups, schedule: backupSchedulePlan(cached, spec.backup, this.#context.now()), memory: this.#restoreMemory(key, cached), ctx };

    const badName = nameProblem(cached);
    if (badName !== undefined) return this.#blocked(cached, pass, 'InvalidName', badName);
    const postgresql = await ensurePostgreSQLFinalizer(this.#context, cached);
    if (pass.schedule.state === 'invalid') this.#context.events.event(postgresql, { type: 'Warning', reason: 'InvalidSchedule', action: 'Schedule', note: pass.schedule.message });
    const owned = await this.#readOwned(postgresql, spec);
    if (owned.claim !== undefined) owned.claim = (await adoptKeptDataClaim(this.#context, postgresql, owned.claim)) ?? owned.claim;
    const conflict = [owned.deployment, owned.service, owned.claim].map((obj) => ownershipConflict(obj, postgresql)).find((c) => c !== undefined);
    if (conflict !== undefined) return this.#blocked(cached, pass, 'Conflict', conflict, { requeueAfterMs: CONFLICT_RECHECK_MS });

    await this.#apply(postgresql, Resources.Service, desiredService(postgresql), owned.service);
    if (owned.desiredClaim !== undefined) await this.#apply(postgresql, Resources.PersistentVolumeClaim, owned.desiredClaim, owned.claim);
    const password = await readDatabasePassword(this.#context.manager.client, requiredNamespace(postgresql), spec.password);
    // Without its password a new pod could not start (the kubelet reports a missing Secret only on the pod): look for
    // the Secret again soon and leave a running database alone.
    const recheck = { requeueAfterMs: PASSWORD_RECHECK_MS };
    if (!password.ok && owned.deployment === undefined) return this.#blocked(cached, pass, password.reason, password.message, recheck);
    await this.#apply(postgresql, Resources.Deployment, desiredDeployment(postgresql, spec), owned.deployment);
    if (!password.ok) return this.#blocked(cached, pass, password.reason, password.message, recheck);

    const restore = await this.#restoreOrServe(postgresql, pass, password);
    if (restore.serving !== undefined) pass.servedSlot = await this.#createDueBackup(postgresql, pass.schedule, ctx);
    await this.#applyRetention(postgresql, pass);
    const failedRestore = restore.failed === undefined ? undefined : (pass.restored ?? storedCondition(restore.latest, PostgreSQLConditionType.Restored));
    await this.#writeStatus(restore.latest, pass, readyCondition(postgresql, spec, restore.serving, failedRestore));
    return this.#nextReconcile(pass.schedule, restore.failed?.retryMs);
  }

  #restoreMemory(key: string, postgresql: PostgreSQL): RestoreMemory {
    const uid = postgresql.metadata.uid ?? '';
    const remembered = this.#restores.get(key);
    const memory = remembered?.uid === uid ? remembered : { uid, backoff: new RestoreBackoff() };
    this.#restores.set(key, memory);
    return memory;
  }

  async #readOwned(postgresql: PostgreSQL, spec: ResolvedPostgreSQLSpec): Promise<{ deployment?: V1Deployment; service?: V1Service; claim?: V1PersistentVolumeClaim; desiredClaim?: DesiredObject<V1PersistentVolumeClaim> }> {
    const { reader } = this.#context.manager;
    const namespace = requiredNamespace(postgresql);
    const name = requiredName(postgresql);
    const desiredClaim = desiredDataClaim(postgresql, spec);
    return {
      deployment: await reader.get(Resources.Deployment, { namespace, name }),
      service: await reader.get(Resources.Service, { namespace, name }),
      ...(desiredClaim === undefined ? {} : { desiredClaim, claim: await reader.get(Resources.PersistentVolumeClaim, { namespace, name: desiredClaim.metadata.name }) }),
    };
  }

  #apply<T extends KubernetesObject>(owner: PostgreSQL, ref: ResourceRef<T>, desired: DesiredObject<T>, current: T | undefined): Promise<T> {
    return this.#context.manager.applyOwned(ref, desired, { owner, fieldManager: FIELD_MANAGER, current });
  }

  /** Writes the status and sets the database's gauges; returns the object as stored. */
  async #writeStatus(postgresql: PostgreSQL, pass: Pass, ready: ConditionOutcome): Promise<PostgreSQL> {
    const { backups, schedule, restored, servedSlot } = pass;
    const outcome = { ready, backups, schedule, ...(restored === undefined ? {} : { restored }), ...(servedSlot === undefined ? {} : { servedSlot }) };
    const { status, changed } = desiredPostgreSQLStatus(postgresql, outcome, this.#context.now());
    const labels = { namespace: requiredNamespace(postgresql), postgresql: requiredName(postgresql) };
    setDatabaseGauges(this.#context.metrics, labels, databaseBackupFigures(backups, schedule));
    setStatusGauges(this.#context.metrics, labels, statusFigures(status));
    return changed ? this.#context.statusWriter.write(PostgreSQLRef, postgresql, status) : postgresql;
  }

  /** Reports what stops the reconcile (an Event and Ready=False) and returns `result`. */
  async #blocked(postgresql: PostgreSQL, pass: Pass, reason: string, message: string, result?: ReconcileResult): Promise<ReconcileResult | undefined> {
    this.#context.events.event(postgresql, { type: 'Warning', reason, action: 'Reconcile', note: message });
    await this.#writeStatus(postgresql, pass, { status: 'False', reason, message });
    return result;
  }

  /**
   * The pod that serves; or, when none does, the pod awaiting its restore restored (if its back-off allows). The pod
   * it returns as serving is labelled now; `failed` is set while a failed restore waits to be tried again, or for its
   * inputs to change.
   */
  async #restoreOrServe(postgresql: PostgreSQL, pass: Pass, password: PasswordLookup & { ok: true }): Promise<RestoreStep> {
    const pods = await podsOf(this.#context.manager, pass.key);
    pass.memory.backoff.retain(new Set(pods.map((pod) => pod.metadata?.uid ?? '')));
    const serving = servingPod(pods);
    if (serving !== undefined) return { serving, latest: postgresql };
    const pod = podsAwaitingRestore(pods)[0];
    if (pod === undefined) return { latest: postgresql };
    const uid = pod.metadata?.uid ?? '';
    const inputs = restoreInputs(password.secretVersion, pass.backups);
    const waitMs = pass.memory.backoff.waitMs(uid, inputs, Date.now());
    if (waitMs > 0) return { failed: Number.isFinite(waitMs) ? { retryMs: waitMs } : {}, latest: postgresql };
    const message = `examining the database of pod ${pod.metadata?.name ?? ''} before it receives traffic`;
    const restoring = await this.#writeStatus(postgresql, pass, { status: 'False', reason: 'Restoring', message });
    const { verdict, backups } = await restorePod(this.#context, {
      postgresql: restoring, spec: pass.spec, backups: pass.backups, pod, password: password.password, signal: pass.ctx.signal, log: pass.ctx.log,
    });
    pass.restored = verdict.condition;
    pass.backups = backups;
    if (!verdict.serve) {
      const { reason } = verdict.condition;
      if (RETRY_CANNOT_FIX.has(reason)) {
        pass.memory.backoff.refused(uid, inputs);
        return { failed: {}, latest: restoring };
      }
      const clearsByItself = CLEARS_BY_ITSELF.has(reason);
      return { failed: { retryMs: pass.memory.backoff.failed(uid, inputs, Date.now(), { clearsByItself }) }, latest: restoring };
    }
    pass.memory.backoff.succeeded(uid);
    return { serving: pod, latest: restoring };
  }

  /**
   * Creates the PostgreSQLBackup of an owed slot; only while a pod serves, so a backup never waits for a database that
   * is not there (the slot stays owed until one serves). Its name is fixed per slot: a retry finds it exists. Returns
   * the slot served, for `status.lastScheduledBackupTime`.
   */
  async #createDueBackup(postgresql: PostgreSQL, schedule: SchedulePlan, ctx: ReconcileContext): Promise<Date | undefined> {
    if (schedule.state !== 'active' || schedule.due === undefined) return undefined;
    const { slot, missed, backupName } = schedule.due;
    try {
      await this.#context.manager.client.create(PostgreSQLBackupRef, desiredBackup(postgresql, backupName, 'Scheduled'));
      ctx.log.info({ backup: backupName, slot: slot.toISOString(), missed }, 'scheduled backup created');
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    if (missed > 0) {
      const note = `${missed} earlier schedule slots were missed (operator down or database not serving); took one backup, ${backupName}, for the latest`;
      this.#context.events.event(postgresql, { type: 'Warning', reason: 'MissedSchedule', action: 'Schedule', note });
    }
    return slot;
  }

  /** Deletes the scheduled backups the retention policy no longer keeps; their finalizer deletes the stored dumps. */
  async #applyRetention(postgresql: PostgreSQL, pass: Pass): Promise<void> {
    const { retention } = pass.spec.backup;
    // Only an object stored before the API server checked maxAge has one that cannot be read; retention stops there.
    if (!retention.ok) throw new Error(retention.message);
    const namespace = requiredNamespace(postgresql);
    for (const verdict of backupsToDelete(pass.backups, retention.policy, this.#context.now())) {
      await this.#context.manager.client.delete(PostgreSQLBackupRef, { namespace, name: verdict.name });
      pass.ctx.log.info({ backup: verdict.name, reason: verdict.reason }, 'retention deleted a backup');
      this.#context.events.event(postgresql, { type: 'Normal', reason: 'BackupDeleted', action: 'Retention', note: `deleted backup ${verdict.name} and its stored dump: ${verdict.message}` });
    }
  }

  /** The sooner of a failed restore's retry and the next schedule slot (a little after it), if either. */
  #nextReconcile(schedule: SchedulePlan, retryRestoreMs: number | undefined): ReconcileResult | undefined {
    const nextSlotMs = schedule.state === 'active' ? schedule.next.getTime() - this.#context.now().getTime() + SLOT_MARGIN_MS : undefined;
    const waits = [retryRestoreMs, nextSlotMs].filter((ms): ms is number => ms !== undefined);
    return waits.length === 0 ? undefined : { requeueAfterMs: Math.max(Math.min(...waits), 1) };
  }
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
