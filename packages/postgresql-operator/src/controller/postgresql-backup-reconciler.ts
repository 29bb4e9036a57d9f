import {
  Resources,
  ensureFinalizer,
  hasFinalizer,
  isControlledBy,
  objectKey,
  parseMetav1Time,
  removeFinalizer,
  type ObjectReconciler,
  type QueueReasonInput,
  type ReconcileContext,
  type ReconcileResult,
} from '@k8s-operators/controller-core';
import type { PostgreSQLBackup, PostgreSQLBackupStatus } from '../api/postgresql-backup-resource.ts';
import { isFinished, type BackupTrigger } from '../api/backup-lifecycle.ts';
import { POSTGRESQL_BACKUP_CRD, POSTGRESQL_CRD, PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { resolvePostgreSQLBackup, type ResolvedPostgreSQLBackup } from '../api/resolved-postgresql-backup.ts';
import { resolvePostgreSQLSpec, type ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { s3StoreRecord } from '../api/resolved-s3-store.ts';
import type { BackupManifest } from '../stores/manifest.ts';
import { BackupStoreError, type BackupKey } from '../stores/store.ts';
import { completedStatus, failedStatus, runningStatus } from '../desired/desired-backup-status.ts';
import { BACKUP_JOB_LABEL, backupJobName, type BackupJobTarget } from '../desired/desired-backup-job.ts';
import { recordBackup } from '../metrics/postgresql-metrics.ts';
import { deleteBackupJob, findBackupJob, JOB_NAME_LABEL, jobOutcome, startBackupJob, type BackupJob } from './backup-jobs.ts';
import { readDatabasePassword } from './database-password.ts';
import { podAddress, servingPod } from './database-pods.ts';
import { BACKUP_FINALIZER, type OperatorContext } from './operator-context.ts';
import { crdBeingRemoved, uninstalling } from './operator-removal.ts';
import { backupsOf, podsOf } from './operator-indexes.ts';
import { STORE_CHECK_ATTEMPTS, STORE_CHECK_INTERVAL_MS, StoreRefusals } from './store-refusals.ts';

/** Only the operator's backup Jobs are cached. */
export const JOB_SCOPE = { labelSelector: BACKUP_JOB_LABEL };

/** A backup that cannot start (no serving pod, no Secret, no PostgreSQL) fails after waiting this long. */
export const PENDING_DEADLINE_MS = 10 * 60_000;
/** While waiting, look again at most this often (events usually come first). */
const PENDING_RECHECK_MS = 30_000;

const INTERRUPTED =
  'interrupted: the operator stopped while this backup ran (a restart or a leader change), so nothing was published; ' +
  'the schedule takes the next one, or create a new PostgreSQLBackup';

export const isPending = (backup: PostgreSQLBackup): boolean => backup.status?.phase === undefined || backup.status.phase === 'Pending';

function backupKey(backup: PostgreSQLBackup): BackupKey {
  return { namespace: backup.metadata.namespace ?? '', postgresql: backup.spec.postgresql, backup: backup.metadata.name ?? '' };
}

function databaseKeyOf(backup: PostgreSQLBackup): string {
  return `${backup.metadata.namespace ?? ''}/${backup.spec.postgresql}`;
}

/** What the store says was published; `ask-again`: it refused, and has not yet refused STORE_CHECK_ATTEMPTS times. */
type Published =
  | { ok: true; manifest: BackupManifest | undefined }
  | { ok: false; message: string }
  | { ok: 'ask-again'; message: string; attempt: number };

/** What a backup about to start runs against, or why it must wait. */
type StartPlan =
  | { kind: 'wait'; why: string }
  /** `counted`: in the failed-backups counter (not timed: it never ran). */
  | { kind: 'fail'; error: string; counted: boolean }
  | { kind: 'start'; postgresql: PostgreSQL; spec: ResolvedPostgreSQLSpec; target: BackupJobTarget; address: string; pod: string; image: string };

/**
 * One PostgreSQLBackup's reconcile: it runs each backup once, Pending → Running → Completed or Failed, against the pod
 * that serves the database (labelled `appReady=ok`) and never another, one backup per database at a time. Every backup
 * runs as a Job (backup-jobs.ts), to the bucket the spec names or to the backup volume through the backup store
 * service; the Job is its record: whichever replica leads follows it and records its outcome once, read from the Job
 * and checked against the manifest in the store. One found Running without its Job was interrupted (the operator
 * stopped before the Job was created or after it was deleted): it is Completed if its manifest was published,
 * otherwise Failed. Deleting a PostgreSQLBackup deletes its stored dump, except while its namespace is being deleted
 * (the PostgreSQL's `onDelete.backups` decides then) or the operator is being uninstalled (a CRD being deleted).
 *
 * The reader returns this process's own status writes while the cache lags behind them: a backup just recorded reads
 * as finished here, never as a Running one that looks interrupted.
 */
export class PostgreSQLBackupReconciler implements ObjectReconciler<PostgreSQLBackup> {
  readonly #context: OperatorContext;
  readonly #enqueue: (key: string, reason: QueueReasonInput) => void;
  readonly #refusals = new StoreRefusals();

  /** `enqueue` queues another backup of the controller (to wake one that waited for this one). */
  constructor(context: OperatorContext, enqueue: (key: string, reason: QueueReasonInput) => void) {
    this.#context = context;
    this.#enqueue = enqueue;
  }

  async reconcile(cached: PostgreSQLBackup, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    // Once per reconcile: the trigger with its default, and the store the status records. The finalizer only changes
    // metadata, so `cached` and the object after it resolve alike.
    const resolved = resolvePostgreSQLBackup(cached);
    if (cached.metadata.deletionTimestamp !== undefined) return this.#deleteStoredDump(cached, resolved, ctx);
    if (isFinished(cached.status)) return this.#removeRecordedJob(cached);
    const backup = await ensureFinalizer(this.#context.manager.client, PostgreSQLBackupRef, cached, BACKUP_FINALIZER);
    if (backup.status?.phase === 'Running') {
      const job = await this.#jobOf(backup);
      return job === undefined ? this.#recoverInterrupted(backup, resolved, ctx) : this.#followJob(backup, resolved, job, ctx);
    }
    return this.#startWhenPossible(backup, resolved, ctx);
  }

  #jobOf(backup: PostgreSQLBackup): Promise<BackupJob | undefined> {
    const { manager } = this.#context;
    return findBackupJob((key) => manager.reader.get(Resources.Job, key, { scope: JOB_SCOPE }), manager.client, backup);
  }

  /** A completed backup's Job goes once it is recorded: by whoever recorded it, or by the next leader. */
  async #removeRecordedJob(backup: PostgreSQLBackup): Promise<undefined> {
    if (backup.status?.phase !== 'Completed') return undefined;
    const { manager } = this.#context;
    const job = await manager.reader.get(Resources.Job, { namespace: backup.metadata.namespace ?? '', name: backupJobName(backup) }, { scope: JOB_SCOPE });
    if (job !== undefined && isControlledBy(job, backup)) await deleteBackupJob(manager.client, job);
    return undefined;
  }

  /** Other backups of the database that waited for this one may start now. */
  async #wakeWaiting(backup: PostgreSQLBackup): Promise<void> {
    const namespace = backup.metadata.namespace ?? '';
    const name = backup.metadata.name ?? '';
    for (const other of await backupsOf(this.#context.manager, databaseKeyOf(backup))) {
      if (other.metadata.name !== name && isPending(other)) this.#enqueue(objectKey(other), { event: 'LockReleased', source: { kind: 'PostgreSQLBackup', namespace, name } });
    }
  }

  /** Waits for the backup's Job to finish, then records what it did: once, whichever replica leads. */
  async #followJob(backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, job: BackupJob, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const { manager, locks } = this.#context;
    const databaseKey = databaseKeyOf(backup);
    const name = backup.metadata.name ?? '';
    // After a leader change this replica holds no lock yet: the running Job is the database's backup.
    locks.tryAcquire(databaseKey, name);
    const pods = await manager.reader.list(Resources.Pod, { scope: JOB_SCOPE, namespace: job.metadata?.namespace ?? '', matchingLabels: { [JOB_NAME_LABEL]: job.metadata?.name ?? '' } });
    const outcome = await jobOutcome(manager.client, job, pods);
    if (!outcome.finished) return undefined;
    let status: PostgreSQLBackupStatus;
    if (outcome.succeeded) {
      const published = await this.#publishedManifest(backup, resolved, ctx);
      if (published.ok === 'ask-again') return this.#askAgain(published, ctx);
      status = this.#statusOfSucceededJob(backup, job, published);
    } else {
      status = failedStatus(backup, outcome.error, this.#context.now(), outcome.reason);
    }
    await this.#writeStatus(backup, status);
    try {
      await this.#reportJobOutcome(backup, resolved.trigger, job, status, outcome.seconds, ctx);
    } finally {
      locks.release(databaseKey, name);
      await this.#wakeWaiting(backup);
    }
    return undefined;
  }

  /** Completed only when its manifest is published: the Job's word is not enough. */
  #statusOfSucceededJob(backup: PostgreSQLBackup, job: BackupJob, published: Exclude<Published, { ok: 'ask-again' }>): PostgreSQLBackupStatus {
    if (!published.ok) return failedStatus(backup, published.message, this.#context.now());
    if (published.manifest !== undefined) return completedStatus(published.manifest);
    return failedStatus(backup, `the backup Job ${job.metadata?.name ?? ''} succeeded, but the bucket holds no manifest for it: nothing was published`, this.#context.now());
  }

  async #reportJobOutcome(backup: PostgreSQLBackup, trigger: BackupTrigger, job: BackupJob, status: PostgreSQLBackupStatus, seconds: number, ctx: ReconcileContext): Promise<void> {
    const name = backup.metadata.name ?? '';
    if (status.phase === 'Completed') {
      recordBackup(this.#context.metrics, trigger, 'completed', seconds);
      ctx.log.info({ bytes: status.sizeBytes, seconds, job: job.metadata?.name }, 'backup completed');
      await this.#eventOnBackupAndDatabase(backup, { type: 'Normal', reason: 'BackupCompleted', note: `backup ${name} completed: ${status.sizeBytes ?? 0} bytes, read back in full` });
      await deleteBackupJob(this.#context.manager.client, job);
    } else {
      recordBackup(this.#context.metrics, trigger, 'failed', seconds);
      ctx.log.warn({ error: status.error, job: job.metadata?.name }, 'backup failed');
      await this.#eventOnBackupAndDatabase(backup, { type: 'Warning', reason: status.reason ?? 'BackupFailed', note: `backup ${name} failed; nothing was published: ${status.error ?? ''}` });
    }
  }

  async #writeStatus(backup: PostgreSQLBackup, outcome: PostgreSQLBackupStatus): Promise<void> {
    // Status writes are whole-status applies: the store the dump went to stays recorded.
    const s3 = backup.status?.s3;
    const status = s3 === undefined || outcome.s3 !== undefined ? outcome : { ...outcome, s3 };
    await this.#context.statusWriter.write(PostgreSQLBackupRef, backup, status);
  }

  /**
   * The manifest of a Running backup, from the store it was written to. A store that cannot be built (its Secret or
   * key gone) will not come back by itself: the backup fails saying so. One that refuses or cannot be reached is asked
   * again, a bounded number of times (store-refusals.ts).
   */
  async #publishedManifest(backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, ctx: ReconcileContext): Promise<Published> {
    const lookup = await this.#context.stores.lookup(backup.metadata.namespace ?? '', resolved.writtenTo);
    if (!lookup.ok) return { ok: false, message: `its store cannot be used to check what was published, so it does not count: ${lookup.message}` };
    const uid = backup.metadata.uid ?? '';
    try {
      const manifest = await lookup.store.manifest(backupKey(backup));
      this.#refusals.forget(uid);
      return { ok: true, manifest };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      const message = (error as Error).message;
      const attempt = this.#refusals.count(uid);
      if (attempt < STORE_CHECK_ATTEMPTS) return { ok: 'ask-again', message, attempt };
      this.#refusals.forget(uid);
      return { ok: false, message: `its store refused ${String(attempt)} times, ${String(STORE_CHECK_INTERVAL_MS / 1000)} s apart, to say what was published, so it does not count: ${message}` };
    }
  }

  #askAgain(refused: Published & { ok: 'ask-again' }, ctx: ReconcileContext): ReconcileResult {
    ctx.log.warn({ attempt: refused.attempt, of: STORE_CHECK_ATTEMPTS, reason: refused.message }, 'the store refused to say what the backup published; asking again');
    return { requeueAfterMs: STORE_CHECK_INTERVAL_MS };
  }

  /** The Event on the backup, and on its PostgreSQL so `kubectl describe pg` shows it too. */
  async #eventOnBackupAndDatabase(backup: PostgreSQLBackup, details: { type: 'Normal' | 'Warning'; reason: string; note: string }): Promise<void> {
    const { events, manager } = this.#context;
    events.event(backup, { ...details, action: 'Backup' });
    const postgresql = await manager.reader.get(PostgreSQLRef, { namespace: backup.metadata.namespace ?? '', name: backup.spec.postgresql });
    if (postgresql !== undefined) events.event(postgresql, { ...details, action: 'Backup', related: backup });
  }

  /** Running without its Job: Completed when its manifest was published before the operator stopped, else Failed. */
  async #recoverInterrupted(backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const name = backup.metadata.name ?? '';
    const published = await this.#publishedManifest(backup, resolved, ctx);
    if (published.ok === 'ask-again') return this.#askAgain(published, ctx);
    if (!published.ok) {
      await this.#writeStatus(backup, failedStatus(backup, published.message, this.#context.now()));
      await this.#eventOnBackupAndDatabase(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${name}: ${published.message}` });
    } else if (published.manifest !== undefined) {
      ctx.log.info('found Running with its manifest published: completed before the operator stopped');
      await this.#writeStatus(backup, completedStatus(published.manifest));
    } else {
      await this.#writeStatus(backup, failedStatus(backup, INTERRUPTED, this.#context.now()));
      await this.#eventOnBackupAndDatabase(backup, { type: 'Warning', reason: 'BackupInterrupted', note: `backup ${name} ${INTERRUPTED}` });
    }
    await this.#wakeWaiting(backup);
    return undefined;
  }

  /** Starts the backup's Job once its database serves and no other backup of it runs; until then, waits (up to a deadline). */
  async #startWhenPossible(backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const { locks } = this.#context;
    // One clock reading for the whole attempt: the deadline, a failure's time and the start time.
    const now = this.#context.now();
    const plan = await this.#startPlan(backup, resolved);
    if (plan.kind === 'wait') return this.#waitOrGiveUp(backup, resolved.trigger, plan.why, now, ctx);
    if (plan.kind === 'fail') return this.#failUnstarted(backup, plan.error, `: ${plan.error}`, now, plan.counted ? resolved.trigger : undefined);
    const databaseKey = databaseKeyOf(backup);
    const name = backup.metadata.name ?? '';
    // The lock covers this process; a sibling found Running covers a Job another leader started. One this process has
    // just finished reads as finished (the reader returns our own writes).
    const runningSibling = (await backupsOf(this.#context.manager, databaseKey)).find((other) => other.metadata.name !== name && other.status?.phase === 'Running');
    if (runningSibling !== undefined) return this.#waitOrGiveUp(backup, resolved.trigger, `backup ${runningSibling.metadata.name ?? ''} of the same database is running`, now, ctx);
    if (!locks.tryAcquire(databaseKey, name)) return this.#waitOrGiveUp(backup, resolved.trigger, `backup ${locks.holder(databaseKey) ?? ''} of the same database is running`, now, ctx);
    try {
      await this.#startJob(backup, resolved.trigger, plan, now, ctx);
    } catch (error) {
      locks.release(databaseKey, name);
      throw error;
    }
    // The lock stays taken until the Job's outcome is recorded (#followJob).
    return undefined;
  }

  /** What the Job needs — the database, its spec, the store, the serving pod, the image — or what is missing. */
  async #startPlan(backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup): Promise<StartPlan> {
    const { manager, stores, backupImage } = this.#context;
    const namespace = backup.metadata.namespace ?? '';
    const postgresql = await manager.reader.get(PostgreSQLRef, { namespace, name: backup.spec.postgresql });
    if (postgresql === undefined) return { kind: 'wait', why: `PostgreSQL ${backup.spec.postgresql} does not exist in namespace ${namespace}` };
    if (postgresql.metadata.deletionTimestamp !== undefined && resolved.trigger !== 'Final') {
      return { kind: 'fail', error: 'the PostgreSQL is being deleted; only its final backup runs now', counted: false };
    }
    // The database's spec, resolved once for this backup: its password Secret, its store, the Job's resources.
    const spec = resolvePostgreSQLSpec(postgresql.spec);
    const password = await readDatabasePassword(manager.client, namespace, spec.password);
    if (!password.ok) return { kind: 'wait', why: password.message };
    const pod = servingPod(await podsOf(manager, databaseKeyOf(backup)));
    const address = pod === undefined ? undefined : podAddress(pod);
    if (pod === undefined || address === undefined) return { kind: 'wait', why: `no pod of PostgreSQL ${backup.spec.postgresql} serves (Ready and labelled appReady=ok)` };
    const { s3 } = spec.backup;
    const store = await stores.lookup(namespace, s3);
    if (!store.ok) return { kind: 'fail', error: `the backup store in spec.backup.s3 cannot be used: ${store.message}`, counted: true };
    const target = await this.#jobTarget(s3);
    if (typeof target === 'string') return { kind: 'wait', why: target };
    if (backupImage === undefined) {
      const error = 'the operator does not know which image to run the backup Job with: start it with --backup-image, or run it in a Pod whose container is named manager';
      return { kind: 'fail', error, counted: true };
    }
    return { kind: 'start', postgresql, spec, target, address, pod: pod.metadata?.name ?? '', image: backupImage };
  }

  /** The bucket, or the backup volume reached through the backup store service: while it has no ready endpoint, why. */
  async #jobTarget(s3: ResolvedPostgreSQLSpec['backup']['s3']): Promise<BackupJobTarget | string> {
    if (s3 !== undefined) return { kind: 's3', s3 };
    try {
      return { kind: 'volume', endpoint: await this.#context.storeEndpoints.current() };
    } catch (error) {
      if (!(error instanceof BackupStoreError)) throw error;
      return error.message;
    }
  }

  async #startJob(backup: PostgreSQLBackup, trigger: BackupTrigger, plan: StartPlan & { kind: 'start' }, now: Date, ctx: ReconcileContext): Promise<void> {
    const { manager, statusWriter, events } = this.#context;
    const { postgresql, spec, target, address, image } = plan;
    const job = await startBackupJob(manager.client, { backup, trigger, postgresql, spec, target, podIP: address, image });
    const { s3 } = spec.backup;
    await statusWriter.write(PostgreSQLBackupRef, backup, { ...runningStatus(now), ...(s3 === undefined ? {} : { s3: s3StoreRecord(s3) }) });
    ctx.log.info({ job: job.metadata?.name, pod: plan.pod }, 'backup Job started');
    events.event(backup, { type: 'Normal', reason: 'BackupJobCreated', action: 'Backup', note: `backup Job ${job.metadata?.name ?? ''} started against pod ${plan.pod}` });
  }

  /** Waits (status Pending, a recheck queued) until the deadline after the backup's creation, then fails it. */
  async #waitOrGiveUp(backup: PostgreSQLBackup, trigger: BackupTrigger, why: string, now: Date, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const createdAt = parseMetav1Time(backup.metadata.creationTimestamp) ?? now;
    const remainingMs = createdAt.getTime() + PENDING_DEADLINE_MS - now.getTime();
    if (remainingMs <= 0) {
      const error = `did not start within ${PENDING_DEADLINE_MS / 60_000} minutes: ${why}`;
      return this.#failUnstarted(backup, error, ` ${error}`, now, trigger);
    }
    if (backup.status?.phase === undefined) await this.#context.statusWriter.write(PostgreSQLBackupRef, backup, { phase: 'Pending' });
    ctx.log.debug({ why }, 'backup waiting');
    return { requeueAfterMs: Math.min(remainingMs, PENDING_RECHECK_MS) };
  }

  /**
   * A backup that never ran fails: its status `error`, a BackupFailed Event ("backup <name>" then `noteEnd`), and, with
   * `countedAs`, the failed-backups counter (not timed: it never ran).
   */
  async #failUnstarted(backup: PostgreSQLBackup, error: string, noteEnd: string, now: Date, countedAs?: BackupTrigger): Promise<undefined> {
    await this.#writeStatus(backup, failedStatus(backup, error, now));
    if (countedAs !== undefined) this.#context.metrics.backups.inc({ trigger: countedAs, result: 'failed' });
    await this.#eventOnBackupAndDatabase(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${backup.metadata.name ?? ''}${noteEnd}` });
    return undefined;
  }

  /**
   * The finalizer: the stored dump goes with its object. While the namespace is being deleted, the dumps stay: the
   * PostgreSQL's `onDelete.backups` decides their fate then (Delete has removed them already, Retain keeps them). While
   * either CRD is being deleted, they stay too: the operator is being uninstalled, and nobody asked for any backup to go.
   */
  async #deleteStoredDump(backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, ctx: ReconcileContext): Promise<undefined> {
    this.#refusals.forget(backup.metadata.uid ?? '');
    if (!hasFinalizer(backup, BACKUP_FINALIZER)) return undefined;
    const { manager, stores } = this.#context;
    const name = backup.metadata.name ?? '';
    const namespace = await manager.client.get(Resources.Namespace, { name: backup.metadata.namespace ?? '' });
    const namespaceGoing = namespace?.metadata?.deletionTimestamp !== undefined;
    // Either kind: the backup's own, or its database's (whose finalizer keeps every backup then).
    const removedCrd = namespaceGoing ? undefined : await crdBeingRemoved(manager.client, [POSTGRESQL_BACKUP_CRD, POSTGRESQL_CRD], ctx.signal);
    if (namespaceGoing) {
      ctx.log.info('namespace being deleted: the stored dump is kept');
    } else if (removedCrd !== undefined) {
      ctx.log.info({ crd: removedCrd }, 'the operator is being uninstalled: the stored dump is kept');
      await this.#eventOnBackupAndDatabase(backup, { type: 'Normal', reason: 'StoredDumpKept', note: `${uninstalling(removedCrd)}: the stored dump of backup ${name} is kept in its store; delete it there if it is not wanted` });
    } else {
      const lookup = await stores.lookup(backup.metadata.namespace ?? '', resolved.writtenTo);
      if (lookup.ok) {
        await lookup.store.delete(backupKey(backup));
        ctx.log.info('deleted the stored dump with its PostgreSQLBackup');
      } else {
        // Keeping the finalizer would keep the object, and its namespace, forever: say what is left behind instead.
        await this.#eventOnBackupAndDatabase(backup, { type: 'Warning', reason: 'StoredDumpKept', note: `the stored dump of backup ${name} could not be deleted and is left in its store: ${lookup.message}` });
      }
    }
    await removeFinalizer(manager.client, PostgreSQLBackupRef, backup, BACKUP_FINALIZER);
    return undefined;
  }
}
