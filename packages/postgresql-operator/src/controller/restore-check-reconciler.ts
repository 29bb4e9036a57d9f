import type { V1Pod } from '@kubernetes/client-node';
import {
  Resources,
  isAlreadyExists,
  isNotFound,
  parseMetav1Time,
  requiredName,
  requiredNamespace,
  type ObjectReconciler,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileResult,
} from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import { PostgreSQLBackupRef } from '../api/postgresql-refs.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { resolvePostgreSQLBackup } from '../api/resolved-postgresql-backup.ts';
import { resolvePostgreSQLSpec, type ResolvedBackupVerify, type ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { desiredRestoreCheckPod, RESTORE_CHECK_BACKUP_ANNOTATION, RESTORE_CHECK_LABEL } from '../desired/desired-restore-check-pod.ts';
import { damagedStatus } from '../desired/desired-backup-status.ts';
import { instanceKey } from '../desired/object-names.ts';
import { restoreCheckPlan, type DueRestoreCheck, type RestoreCheckPlan } from '../desired/restore-check-plan.ts';
import { backupStatusWithRestoreCheck, lastRestoreChecks } from '../desired/restore-check-status.ts';
import { recordRestoreCheck, removeRestoreCheckGauges, setRestoreCheckGauges, type DatabaseRestoreCheckFigures } from '../metrics/postgresql-metrics.ts';
import { connectionParameters, withConnection } from '../postgres/connection.ts';
import { restoreAndRead } from '../restore/restore-check.ts';
import { identitySource, optionalIdentity } from './backup-identity.ts';
import { isLive, isTerminating, podAddress } from './database-pods.ts';
import { readDatabasePassword } from './database-password.ts';
import { readRestoreCheck } from './restore-check-source.ts';
import type { OperatorContext } from './operator-context.ts';
import { backupsOf } from './operator-indexes.ts';
import { InterruptedDrills } from './interrupted-drills.ts';
import { answersVerdict, failureVerdict, type RestoreCheckVerdict } from './restore-check-verdict.ts';

/** Scratch pods: cached by their own label, which no database pod, Service or backup Job carries. */
export const RESTORE_CHECK_POD_SCOPE = { labelSelector: RESTORE_CHECK_LABEL };
/** While a drill waits (its scratch pod starting, a password missing), look again at least this often. */
const WAITING_RECHECK_MS = 60_000;
/** Wake a little after a schedule slot, so the slot is at or before "now" when the reconcile runs. */
const SLOT_MARGIN_MS = 500;

/**
 * Restore drills (`spec.backup.verify`) of one PostgreSQL, in named steps: is a drill owed (the schedule, or a new
 * `exp.wheel.jp/restore-check` value) and is there a usable backup; then its scratch pod created, awaited, restored
 * into and checked (restore-check.ts), the result recorded on the backup, and the pod deleted.
 *
 * A drill lives in one reconcile: its scratch pod is restored into only by the process that created it (this process
 * remembers the pod's UID). A scratch pod this process did not create was left by an operator that stopped midway (a
 * restart, a leader change): nothing it holds is trusted, it is deleted and the drill, still owed since nothing was
 * recorded, runs again in a new one. The pod has a fixed name, so there is never a second one.
 *
 * The live database is never read or written: a drill connects only to its scratch pod.
 */
export class RestoreCheckReconciler implements ObjectReconciler<PostgreSQL> {
  readonly #context: OperatorContext;
  /** Per PostgreSQL key: the UID of the scratch pod this process created and may restore into. */
  readonly #created = new Map<string, string>();
  readonly #interruptions = new InterruptedDrills();

  constructor(context: OperatorContext) {
    this.#context = context;
  }

  gone(request: ReconcileRequest): void {
    this.#created.delete(request.key);
    this.#interruptions.finished(request.key);
    removeRestoreCheckGauges(this.#context.metrics, { namespace: request.namespace ?? '', postgresql: request.name });
  }

  async reconcile(postgresql: PostgreSQL, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    // Deleted: the garbage collector deletes the scratch pod with its owner.
    if (postgresql.metadata.deletionTimestamp !== undefined) return undefined;
    const spec = resolvePostgreSQLSpec(postgresql.spec);
    const key = instanceKey(postgresql);
    const backups = await backupsOf(this.#context.manager, key);
    const plan = restoreCheckPlan(postgresql, spec.backup.verify, backups, this.#context.now());
    this.#setGauges(postgresql, backups, plan);
    const pods = await this.#context.manager.reader.list(Resources.Pod, { scope: RESTORE_CHECK_POD_SCOPE, namespace: requiredNamespace(postgresql), matchingLabels: { [RESTORE_CHECK_LABEL]: requiredName(postgresql) } });

    if (plan.state !== 'active' || plan.due === undefined || plan.target === undefined || spec.backup.verify === undefined) {
      // Nothing to drill now: a scratch pod left over (a drill whose backup went, verify removed) goes.
      for (const pod of pods) await this.#deletePod(pod);
      if (plan.state === 'invalid') ctx.log.info({ problem: plan.message }, 'restore drills are not scheduled');
      return this.#untilNextSlot(plan);
    }
    const drill = { postgresql, spec, verify: spec.backup.verify, backup: plan.target, due: plan.due, ctx };
    const pod = pods[0];
    if (pod === undefined) {
      const waitMs = this.#interruptions.waitMs(key, this.#context.now().getTime());
      if (waitMs > 0) return { requeueAfterMs: waitMs };
      // A check whose ConfigMap is missing would only be found wanting after the restore: no scratch pod for it.
      const check = await readRestoreCheck(this.#context.manager.client, requiredNamespace(postgresql), drill.verify.check);
      if (!check.ok) return { requeueAfterMs: this.#notRunnable(key, postgresql, check.message) };
      return this.#createScratchPod(key, drill);
    }
    if (!this.#isUsableScratchPod(key, pod, plan.target)) {
      const stopped = this.#created.get(key) === pod.metadata?.uid && !isTerminating(pod);
      this.#created.delete(key);
      await this.#deletePod(pod);
      if (!stopped) return { requeueAfterMs: WAITING_RECHECK_MS };
      return { requeueAfterMs: this.#interrupted(key, postgresql, `scratch pod ${pod.metadata?.name ?? ''} stopped (${pod.status?.phase ?? 'unknown phase'}) before the drill finished`) };
    }
    // Its readiness wakes this controller (the pod is watched).
    if (!isLive(pod)) return { requeueAfterMs: WAITING_RECHECK_MS };
    const verdict = await this.#runDrill(pod, drill);
    this.#created.delete(key);
    await this.#deletePod(pod);
    if (verdict.result === 'Interrupted') return { requeueAfterMs: this.#interrupted(key, postgresql, verdict.message) };
    this.#interruptions.finished(key);
    return this.#untilNextSlot(plan);
  }

  /** A pod this process created for the backup to drill, still starting or running. */
  #isUsableScratchPod(key: string, pod: V1Pod, backup: PostgreSQLBackup): boolean {
    const phase = pod.status?.phase;
    return (
      this.#created.get(key) === pod.metadata?.uid &&
      !isTerminating(pod) &&
      phase !== 'Failed' &&
      phase !== 'Succeeded' &&
      pod.metadata?.annotations?.[RESTORE_CHECK_BACKUP_ANNOTATION] === backup.metadata.name
    );
  }

  async #createScratchPod(key: string, drill: Drill): Promise<ReconcileResult> {
    const { postgresql, spec, verify, backup, due, ctx } = drill;
    const desired = desiredRestoreCheckPod(postgresql, spec, verify, backup.metadata.name ?? '');
    try {
      const created = await this.#context.manager.client.create(Resources.Pod, desired);
      this.#created.set(key, created.metadata?.uid ?? '');
      ctx.log.info({ pod: desired.metadata.name, backup: backup.metadata.name, trigger: due.trigger }, 'restore drill started: scratch pod created');
    } catch (error) {
      // One the cache does not show yet: seen on its event, then deleted as not ours, and the drill starts afresh.
      if (!isAlreadyExists(error)) throw error;
    }
    return { requeueAfterMs: WAITING_RECHECK_MS };
  }

  /** Restores the backup into the scratch pod, checks it, and records the result unless the drill was interrupted. */
  async #runDrill(pod: V1Pod, drill: Drill): Promise<RestoreCheckVerdict> {
    const { postgresql, spec, verify, backup, due, ctx } = drill;
    const namespace = requiredNamespace(postgresql);
    const startedAt = this.#context.now();
    const password = await readDatabasePassword(this.#context.manager.client, namespace, spec.password);
    if (!password.ok) return { result: 'Interrupted', message: password.message };
    const check = await readRestoreCheck(this.#context.manager.client, namespace, verify.check);
    if (!check.ok) return { result: 'Interrupted', message: check.message };
    const connection = connectionParameters({ podIP: podAddress(pod) ?? '', database: spec.db, user: spec.user, password: password.password });
    let verdict: RestoreCheckVerdict;
    try {
      const store = await this.#context.stores.lookup(namespace, resolvePostgreSQLBackup(backup).writtenTo);
      if (!store.ok) return { result: 'Interrupted', message: `the store of backup ${backup.metadata.name ?? ''} cannot be used: ${store.message}` };
      const manifest = await store.store.manifest({ namespace, postgresql: requiredName(postgresql), backup: backup.metadata.name ?? '' });
      if (manifest === undefined) {
        verdict = { result: 'Failed', reason: 'BackupCorrupted', error: `the store holds no published dump of backup ${backup.metadata.name ?? ''}` };
      } else {
        const { answers } = await restoreAndRead({
          store: store.store, backup: manifest, connection, role: spec.user, signal: ctx.signal, tools: this.#context.tools, ...(check.check === undefined ? {} : { check: check.check }),
          ...optionalIdentity(identitySource(this.#context.manager.client, namespace, spec.backup.encryption)),
        });
        verdict = answersVerdict(check.check, answers);
      }
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      const answers = await this.#scratchServerAnswers(pod, connection);
      verdict = failureVerdict(error, answers, { secret: spec.password, user: spec.user });
    }
    if (verdict.result !== 'Interrupted') await this.#record(drill, { verdict, startedAt, finishedAt: this.#context.now(), trigger: due.trigger, ...(due.request === undefined ? {} : { request: due.request }) });
    return verdict;
  }

  /** Whether the scratch server is still there after a failure: the same pod, live, accepting a connection. */
  async #scratchServerAnswers(pod: V1Pod, connection: Parameters<typeof withConnection>[0]): Promise<boolean> {
    const { namespace, name, uid } = pod.metadata ?? {};
    const current = await this.#context.manager.client.get(Resources.Pod, { namespace: namespace ?? '', name: name ?? '' });
    if (current?.metadata?.uid !== uid || current === undefined || !isLive(current)) return false;
    try {
      await withConnection(connection, async (client) => client.query('SELECT 1'));
      return true;
    } catch {
      return false;
    }
  }

  async #record(drill: Drill, finished: Parameters<typeof backupStatusWithRestoreCheck>[1]): Promise<void> {
    const { postgresql, backup, ctx } = drill;
    const { verdict } = finished;
    const name = backup.metadata.name ?? '';
    const current = (await this.#context.manager.reader.get(PostgreSQLBackupRef, { namespace: requiredNamespace(postgresql), name })) ?? backup;
    const withCheck = backupStatusWithRestoreCheck(current, finished);
    // A dump the drill found damaged (or gone) stops counting as verified, as when a new pod's restore finds it so:
    // restores and the next drill take the next usable backup, and retention no longer keeps it as a good one.
    const corrupted = verdict.result === 'Failed' && verdict.reason === 'BackupCorrupted';
    await this.#context.statusWriter.write(PostgreSQLBackupRef, current, corrupted ? damagedStatus({ ...current, status: withCheck }, `found damaged by a restore drill: ${verdict.error}`) : withCheck);
    recordRestoreCheck(this.#context.metrics, verdict.result === 'Passed' ? 'passed' : 'failed');
    const note = verdict.result === 'Passed'
      ? `backup ${name} restored into a scratch pod and checked: ${verdict.output}`
      : `backup ${name} failed its restore drill (${verdict.reason}): ${verdict.error}`;
    const event = { type: verdict.result === 'Passed' ? 'Normal' : 'Warning', reason: verdict.result === 'Passed' ? 'RestoreCheckPassed' : 'RestoreCheckFailed', action: 'RestoreCheck', note } as const;
    this.#context.events.event(postgresql, { ...event, related: current });
    ctx.log.info({ backup: name, result: verdict.result, trigger: finished.trigger }, note);
  }

  /** Counts and reports an interrupted drill; returns how long until it may run again in a new scratch pod. */
  #interrupted(key: string, postgresql: PostgreSQL, message: string): number {
    recordRestoreCheck(this.#context.metrics, 'interrupted');
    const delayMs = this.#interruptions.interrupted(key, this.#context.now().getTime());
    this.#context.events.event(postgresql, { type: 'Warning', reason: 'RestoreCheckInterrupted', action: 'RestoreCheck', note: `restore drill interrupted, it runs again in a new scratch pod in ${String(Math.round(delayMs / 1000))} s: ${message}` });
    return delayMs;
  }

  /**
   * A drill that cannot start for a reason the user must fix (its check's ConfigMap): said in an Event, looked at again
   * after the same back-off as an interrupted drill, since no watch tells when the ConfigMap is fixed.
   */
  #notRunnable(key: string, postgresql: PostgreSQL, message: string): number {
    const delayMs = this.#interruptions.interrupted(key, this.#context.now().getTime());
    this.#context.events.event(postgresql, { type: 'Warning', reason: 'RestoreCheckNotRunnable', action: 'RestoreCheck', note: `restore drill not started, looked at again in ${String(Math.round(delayMs / 1000))} s: ${message}` });
    return delayMs;
  }

  async #deletePod(pod: V1Pod): Promise<void> {
    if (isTerminating(pod)) return;
    const { namespace, name, uid } = pod.metadata ?? {};
    try {
      await this.#context.manager.client.delete(Resources.Pod, { namespace: namespace ?? '', name: name ?? '' }, { gracePeriodSeconds: 0, ...(uid === undefined ? {} : { preconditions: { uid } }) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  #setGauges(postgresql: PostgreSQL, backups: readonly PostgreSQLBackup[], plan: RestoreCheckPlan): void {
    const labels = { namespace: requiredNamespace(postgresql), postgresql: requiredName(postgresql) };
    setRestoreCheckGauges(this.#context.metrics, labels, restoreCheckFigures(backups, plan));
  }

  #untilNextSlot(plan: RestoreCheckPlan): ReconcileResult | undefined {
    if (plan.state !== 'active') return undefined;
    return { requeueAfterMs: Math.max(plan.next.getTime() - this.#context.now().getTime() + SLOT_MARGIN_MS, 1) };
  }
}

interface Drill {
  postgresql: PostgreSQL;
  spec: ResolvedPostgreSQLSpec;
  verify: ResolvedBackupVerify;
  backup: PostgreSQLBackup;
  due: DueRestoreCheck;
  ctx: ReconcileContext;
}

const seconds = (time: string | undefined): number | undefined => {
  const parsed = parseMetav1Time(time);
  return parsed === undefined ? undefined : parsed.getTime() / 1000;
};

/** The per-database drill gauges, from the backups' records: right again at once after a restart. */
export function restoreCheckFigures(backups: readonly PostgreSQLBackup[], plan: RestoreCheckPlan): DatabaseRestoreCheckFigures {
  const { last, lastPassed } = lastRestoreChecks(backups);
  const lastSuccessSeconds = seconds(lastPassed?.status?.restoreCheck?.time);
  const lastCheck = last?.status?.restoreCheck;
  const lastFailureSeconds = lastCheck === undefined ? undefined : lastCheck.result === 'Failed' ? (seconds(lastCheck.time) ?? 0) : 0;
  return {
    ...(lastSuccessSeconds === undefined ? {} : { lastSuccessSeconds }),
    ...(lastFailureSeconds === undefined ? {} : { lastFailureSeconds }),
    ...(plan.state === 'active' ? { schedulePeriodSeconds: plan.periodSeconds } : {}),
  };
}
