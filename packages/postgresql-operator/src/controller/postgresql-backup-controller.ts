import type { KubernetesObject } from '@kubernetes/client-node';
import {
  Resources,
  ensureFinalizer,
  getControllerOf,
  hasFinalizer,
  isControlledBy,
  objectKey,
  parseMetav1Time,
  removeFinalizer,
  type Controller,
  type ReconcileContext,
  type ReconcileResult,
} from '@k8s-operators/controller-core';
import { PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import type { PostgreSQLBackup, PostgreSQLBackupStatus } from '../api/postgresql-backup-resource.ts';
import { resolvePostgreSQLBackup, type ResolvedPostgreSQLBackup } from '../api/resolved-postgresql-backup.ts';
import { resolvePostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { s3StoreRecord } from '../api/resolved-s3-store.ts';
import type { BackupManifest } from '../backup/manifest.ts';
import { BackupStoreError, type BackupKey } from '../backup/store.ts';
import { deleteBackupJob, findBackupJob, JOB_NAME_LABEL, jobOutcome, startBackupJob, type BackupJob } from './backup-jobs.ts';
import { completedStatus, failedStatus, isFinished, runningStatus } from '../desired/backup-status.ts';
import { readDatabasePassword } from './database-password.ts';
import { podAddress, servingPod } from './database-pods.ts';
import { BACKUP_JOB_LABEL, backupJobName, type BackupJobTarget } from '../desired/desired-backup-job.ts';
import { INSTANCE_LABEL } from '../desired/labels.ts';
import { BACKUP_FINALIZER, type OperatorContext } from './operator-context.ts';
import { BY_POSTGRESQL_INDEX, backupsOf, POD_SCOPE, podsOf } from './operator-indexes.ts';
import { recordBackup } from '../metrics/postgresql-metrics.ts';

/** Only the operator's backup Jobs are cached. */
const JOB_SCOPE = { labelSelector: BACKUP_JOB_LABEL };

/** A backup that cannot start (no serving pod, no Secret, no PostgreSQL) fails after waiting this long. */
export const PENDING_DEADLINE_MS = 10 * 60_000;
/** While waiting, look again at most this often (events usually come first). */
const PENDING_RECHECK_MS = 30_000;

const INTERRUPTED =
  'interrupted: the operator stopped while this backup ran (a restart or a leader change), so nothing was published; ' +
  'the schedule takes the next one, or create a new PostgreSQLBackup';

function backupKey(backup: PostgreSQLBackup): BackupKey {
  return { namespace: backup.metadata.namespace ?? '', postgresql: backup.spec.postgresql, backup: backup.metadata.name ?? '' };
}

const isPending = (backup: PostgreSQLBackup): boolean => backup.status?.phase === undefined || backup.status.phase === 'Pending';

/**
 * Registers the PostgreSQLBackup controller: it runs each backup once, Pending → Running → Completed or Failed,
 * against the pod that serves the database (labelled `appReady=ok`) and never another, one backup per database at a
 * time. Every backup runs as a Job (backup-jobs.ts), to the bucket the spec names or to the backup volume through the
 * backup store service; the Job is its record: whichever replica leads follows it and records its outcome once, read
 * from the Job and checked against the manifest in the store. One found Running without its Job was interrupted (by
 * an operator version that ran backups in its own process): it is Completed if its manifest was published, otherwise
 * Failed. Deleting a PostgreSQLBackup deletes its stored dump, except while its namespace is being deleted (the
 * PostgreSQL's `onDelete.backups` decides then).
 */
export function setupBackupController(context: OperatorContext): Controller {
  const { manager, events, statusWriter, metrics, locks, stores } = context;

  const reconcile = async (ctx: ReconcileContext): Promise<ReconcileResult | undefined> => {
    // The reader returns this process's own status writes while the cache lags behind them: a backup just recorded
    // reads as finished here, never as a Running one that looks interrupted.
    const cached = await manager.reader.get(PostgreSQLBackupRef, ctx.request);
    if (cached === undefined) return undefined;
    // Once per reconcile: the trigger with its default, and the store the status records. The finalizer only changes
    // metadata, so `cached` and the object after it resolve alike.
    const resolved = resolvePostgreSQLBackup(cached);
    if (cached.metadata.deletionTimestamp !== undefined) return deleteStoredDump(cached, resolved, ctx);
    if (isFinished(cached)) {
      await removeRecordedJob(cached);
      return undefined;
    }
    const backup = await ensureFinalizer(manager.client, PostgreSQLBackupRef, cached, BACKUP_FINALIZER);
    if (backup.status?.phase === 'Running') {
      const job = await jobOf(backup);
      return job === undefined ? recoverInterrupted(backup, resolved, ctx) : followJob(backup, resolved, job, ctx);
    }
    return runWhenPossible(backup, resolved, ctx);
  };

  const jobOf = (backup: PostgreSQLBackup): Promise<BackupJob | undefined> =>
    findBackupJob((key) => manager.reader.get(Resources.Job, key, { scope: JOB_SCOPE }), manager.client, backup);

  /** A completed backup's Job goes once it is recorded: by whoever recorded it, or by the next leader. */
  const removeRecordedJob = async (backup: PostgreSQLBackup): Promise<void> => {
    if (backup.status?.phase !== 'Completed') return;
    const job = await manager.reader.get(Resources.Job, { namespace: backup.metadata.namespace ?? '', name: backupJobName(backup) }, { scope: JOB_SCOPE });
    if (job !== undefined && isControlledBy(job, backup)) await deleteBackupJob(manager.client, job);
  };

  /** Other backups of the database that waited for this one may start now. */
  const wakeWaiting = async (backup: PostgreSQLBackup): Promise<void> => {
    const namespace = backup.metadata.namespace ?? '';
    const name = backup.metadata.name ?? '';
    for (const other of await backupsOf(manager, `${namespace}/${backup.spec.postgresql}`)) {
      if (other.metadata.name !== name && isPending(other)) controller.enqueue(objectKey(other), { event: 'LockReleased', source: { kind: 'PostgreSQLBackup', namespace, name } });
    }
  };

  /** Waits for the backup's Job to finish, then records what it did: once, whichever replica leads. */
  const followJob = async (backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, job: BackupJob, ctx: ReconcileContext): Promise<undefined> => {
    const databaseKey = `${backup.metadata.namespace ?? ''}/${backup.spec.postgresql}`;
    const name = backup.metadata.name ?? '';
    // After a leader change this replica holds no lock yet: the running Job is the database's backup.
    locks.tryAcquire(databaseKey, name);
    const pods = await manager.reader.list(Resources.Pod, { scope: JOB_SCOPE, namespace: job.metadata?.namespace ?? '', matchingLabels: { [JOB_NAME_LABEL]: job.metadata?.name ?? '' } });
    const outcome = await jobOutcome(manager.client, job, pods);
    if (!outcome.finished) return undefined;
    const { trigger } = resolved;
    let status: PostgreSQLBackupStatus;
    if (outcome.succeeded) {
      // The Job's word is not enough: the published manifest is what makes it a backup.
      const published = await publishedManifest(backup, resolved);
      status = !published.ok
        ? failedStatus(backup, published.message, context.now())
        : published.manifest !== undefined
          ? completedStatus(published.manifest)
          : failedStatus(backup, `the backup Job ${job.metadata?.name ?? ''} succeeded, but the bucket holds no manifest for it: nothing was published`, context.now());
    } else {
      status = failedStatus(backup, outcome.error, context.now());
    }
    await finish(backup, status);
    try {
      if (status.phase === 'Completed') {
        recordBackup(metrics, trigger, 'completed', outcome.seconds);
        ctx.log.info({ bytes: status.sizeBytes, seconds: outcome.seconds, job: job.metadata?.name }, 'backup completed');
        await tell(backup, { type: 'Normal', reason: 'BackupCompleted', note: `backup ${name} completed: ${status.sizeBytes ?? 0} bytes, read back in full` });
        await deleteBackupJob(manager.client, job);
      } else {
        recordBackup(metrics, trigger, 'failed', outcome.seconds);
        ctx.log.warn({ error: status.error, job: job.metadata?.name }, 'backup failed');
        await tell(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${name} failed; nothing was published: ${status.error ?? ''}` });
      }
    } finally {
      locks.release(databaseKey, name);
      await wakeWaiting(backup);
    }
    return undefined;
  };

  const finish = async (backup: PostgreSQLBackup, outcome: PostgreSQLBackupStatus): Promise<void> => {
    // Status writes are whole-status applies: the store the dump went to stays recorded.
    const s3 = backup.status?.s3;
    const status = s3 === undefined || outcome.s3 !== undefined ? outcome : { ...outcome, s3 };
    await statusWriter.write(PostgreSQLBackupRef, backup, status);
  };

  /**
   * The manifest of a Running backup, from the store it was written to. A store that cannot be built (its Secret or
   * key gone) will not come back by itself: the backup fails saying so. A store that refuses or cannot be reached is
   * an error, retried with the queue's back-off.
   */
  const publishedManifest = async (backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup): Promise<{ ok: true; manifest: BackupManifest | undefined } | { ok: false; message: string }> => {
    const lookup = await stores.lookup(backup.metadata.namespace ?? '', resolved.writtenTo);
    if (!lookup.ok) return { ok: false, message: `its store cannot be used to check what was published, so it does not count: ${lookup.message}` };
    return { ok: true, manifest: await lookup.store.manifest(backupKey(backup)) };
  };

  /** The event on the backup, and on its PostgreSQL so `kubectl describe pg` shows it too. */
  const tell = async (backup: PostgreSQLBackup, details: { type: 'Normal' | 'Warning'; reason: string; note: string }): Promise<void> => {
    events.event(backup, { ...details, action: 'Backup' });
    const postgresql = await manager.reader.get(PostgreSQLRef, { namespace: backup.metadata.namespace ?? '', name: backup.spec.postgresql });
    if (postgresql !== undefined) events.event(postgresql, { ...details, action: 'Backup', related: backup });
  };

  const recoverInterrupted = async (backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, ctx: ReconcileContext): Promise<undefined> => {
    const published = await publishedManifest(backup, resolved);
    if (!published.ok) {
      await finish(backup, failedStatus(backup, published.message, context.now()));
      await tell(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${backup.metadata.name ?? ''}: ${published.message}` });
      await wakeWaiting(backup);
      return undefined;
    }
    const { manifest } = published;
    if (manifest !== undefined) {
      ctx.log.info('found Running with its manifest published: completed before the operator stopped');
      await finish(backup, completedStatus(manifest));
      await wakeWaiting(backup);
      return undefined;
    }
    await finish(backup, failedStatus(backup, INTERRUPTED, context.now()));
    await tell(backup, { type: 'Warning', reason: 'BackupInterrupted', note: `backup ${backup.metadata.name ?? ''} ${INTERRUPTED}` });
    await wakeWaiting(backup);
    return undefined;
  };

  const runWhenPossible = async (backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, ctx: ReconcileContext): Promise<ReconcileResult | undefined> => {
    const namespace = backup.metadata.namespace ?? '';
    const databaseKey = `${namespace}/${backup.spec.postgresql}`;
    const { trigger } = resolved;
    const now = context.now();
    const waitOr = async (why: string): Promise<ReconcileResult | undefined> => {
      const createdAt = parseMetav1Time(backup.metadata.creationTimestamp) ?? now;
      const remainingMs = createdAt.getTime() + PENDING_DEADLINE_MS - now.getTime();
      if (remainingMs <= 0) {
        const error = `did not start within ${PENDING_DEADLINE_MS / 60_000} minutes: ${why}`;
        await finish(backup, failedStatus(backup, error, now));
        // Counted, but not timed: it never ran.
        metrics.backups.inc({ trigger, result: 'failed' });
        await tell(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${backup.metadata.name ?? ''} ${error}` });
        return undefined;
      }
      if (backup.status?.phase === undefined) await statusWriter.write(PostgreSQLBackupRef, backup, { phase: 'Pending' });
      ctx.log.debug({ why }, 'backup waiting');
      return { requeueAfterMs: Math.min(remainingMs, PENDING_RECHECK_MS) };
    };

    const postgresql = await manager.reader.get(PostgreSQLRef, { namespace, name: backup.spec.postgresql });
    if (postgresql === undefined) return waitOr(`PostgreSQL ${backup.spec.postgresql} does not exist in namespace ${namespace}`);
    if (postgresql.metadata.deletionTimestamp !== undefined && trigger !== 'Final') {
      const error = 'the PostgreSQL is being deleted; only its final backup runs now';
      await finish(backup, failedStatus(backup, error, now));
      await tell(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${backup.metadata.name ?? ''}: ${error}` });
      return undefined;
    }
    // The database's spec, resolved once for this backup: its password Secret, its store, the Job's resources.
    const spec = resolvePostgreSQLSpec(postgresql.spec);
    const password = await readDatabasePassword(manager.client, namespace, spec.password);
    if (!password.ok) return waitOr(password.message);
    const pod = servingPod(await podsOf(manager, databaseKey));
    const address = pod === undefined ? undefined : podAddress(pod);
    if (address === undefined) return waitOr(`no pod of PostgreSQL ${backup.spec.postgresql} serves (Ready and labelled appReady=ok)`);
    const name = backup.metadata.name ?? '';
    const { s3 } = spec.backup;
    const target = await stores.lookup(namespace, s3);
    if (!target.ok) {
      const error = `the backup store in spec.backup.s3 cannot be used: ${target.message}`;
      await finish(backup, failedStatus(backup, error, now));
      metrics.backups.inc({ trigger, result: 'failed' });
      await tell(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${name}: ${error}` });
      return undefined;
    }
    // The backup volume is reached through the backup store service: while it has no ready endpoint, wait for it.
    let jobTarget: BackupJobTarget;
    if (s3 !== undefined) {
      jobTarget = { kind: 's3', s3 };
    } else {
      try {
        jobTarget = { kind: 'volume', endpoint: await context.storeEndpoints.current() };
      } catch (error) {
        if (!(error instanceof BackupStoreError)) throw error;
        return waitOr(error.message);
      }
    }
    if (context.backupImage === undefined) {
      const error = 'the operator does not know which image to run the backup Job with: start it with --backup-image, or run it in a Pod whose container is named manager';
      await finish(backup, failedStatus(backup, error, now));
      metrics.backups.inc({ trigger, result: 'failed' });
      await tell(backup, { type: 'Warning', reason: 'BackupFailed', note: `backup ${name}: ${error}` });
      return undefined;
    }
    // The lock covers this process; a sibling found Running covers a Job another leader started. One this process has
    // just finished reads as finished (the reader returns our own writes).
    const runningSibling = (await backupsOf(manager, databaseKey)).find((other) => other.metadata.name !== name && other.status?.phase === 'Running');
    if (runningSibling !== undefined) return waitOr(`backup ${runningSibling.metadata.name ?? ''} of the same database is running`);
    if (!locks.tryAcquire(databaseKey, name)) return waitOr(`backup ${locks.holder(databaseKey) ?? ''} of the same database is running`);
    try {
      const job = await startBackupJob(manager.client, { backup, trigger, postgresql, spec, target: jobTarget, podIP: address, image: context.backupImage });
      await statusWriter.write(PostgreSQLBackupRef, backup, { ...runningStatus(now), ...(s3 === undefined ? {} : { s3: s3StoreRecord(s3) }) });
      ctx.log.info({ job: job.metadata?.name, pod: pod?.metadata?.name }, 'backup Job started');
      events.event(backup, { type: 'Normal', reason: 'BackupJobCreated', action: 'Backup', note: `backup Job ${job.metadata?.name ?? ''} started against pod ${pod?.metadata?.name ?? ''}` });
    } catch (error) {
      locks.release(databaseKey, name);
      throw error;
    }
    // The lock stays taken until the Job's outcome is recorded (followJob).
    return undefined;
  };

  /**
   * The finalizer: the stored dump goes with its object. While the namespace is being deleted, the dumps stay: the
   * PostgreSQL's `onDelete.backups` decides their fate then (Delete has removed them already, Retain keeps them).
   */
  const deleteStoredDump = async (backup: PostgreSQLBackup, resolved: ResolvedPostgreSQLBackup, ctx: ReconcileContext): Promise<undefined> => {
    if (!hasFinalizer(backup, BACKUP_FINALIZER)) return undefined;
    const namespace = await manager.client.get(Resources.Namespace, { name: backup.metadata.namespace ?? '' });
    if (namespace?.metadata?.deletionTimestamp === undefined) {
      const lookup = await stores.lookup(backup.metadata.namespace ?? '', resolved.writtenTo);
      if (lookup.ok) {
        await lookup.store.delete(backupKey(backup));
        ctx.log.info('deleted the stored dump with its PostgreSQLBackup');
      } else {
        // Keeping the finalizer would keep the object, and its namespace, forever: say what is left behind instead.
        await tell(backup, { type: 'Warning', reason: 'StoredDumpKept', note: `the stored dump of backup ${backup.metadata.name ?? ''} could not be deleted and is left in its store: ${lookup.message}` });
      }
    } else {
      ctx.log.info('namespace being deleted: the stored dump is kept');
    }
    await removeFinalizer(manager.client, PostgreSQLBackupRef, backup, BACKUP_FINALIZER);
    return undefined;
  };

  const pendingBackupsOf = (obj: KubernetesObject, postgresql: string | undefined): string[] =>
    postgresql === undefined
      ? []
      : manager.informerFor(PostgreSQLBackupRef).cache.byIndex(BY_POSTGRESQL_INDEX, `${obj.metadata?.namespace ?? ''}/${postgresql}`).filter(isPending).map((b) => objectKey(b));

  /** The backup whose Job runs `pod`: the Pod's controller is the Job, and the Job's is the PostgreSQLBackup. */
  const backupOfJobPod = (pod: KubernetesObject): string[] => {
    const namespace = pod.metadata?.namespace ?? '';
    const jobRef = getControllerOf(pod);
    if (jobRef?.kind !== 'Job') return [];
    const job = manager.informerFor(Resources.Job, JOB_SCOPE).cache.get({ namespace, name: jobRef.name });
    const backupRef = job === undefined ? undefined : getControllerOf(job);
    return backupRef?.kind === 'PostgreSQLBackup' ? [`${namespace}/${backupRef.name}`] : [];
  };

  // Reconciles run only once the manager starts the controller, so `controller` is set by then.
  const controller = manager
    .controller('postgresqlbackup')
    .for(PostgreSQLBackupRef)
    // A pod that starts serving, or a PostgreSQL that appears, lets waiting backups start.
    .watches(Resources.Pod, (pod) => pendingBackupsOf(pod, pod.metadata?.labels?.[INSTANCE_LABEL]), { scope: POD_SCOPE })
    .watches(PostgreSQLRef, (pg) => pendingBackupsOf(pg, pg.metadata.name))
    // A backup Job that finishes is recorded at once; one that succeeded, as soon as its Pod shows it (jobOutcome).
    .owns(Resources.Job, { scope: JOB_SCOPE })
    .watches(Resources.Pod, backupOfJobPod, { scope: JOB_SCOPE })
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(reconcile);
  return controller;
}
