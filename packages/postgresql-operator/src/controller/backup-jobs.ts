import { Resources, isAlreadyExists, isControlledBy, parseMetav1Time, type KubeClient, type ObjectOf } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import { parseBackupJobResult, type BackupJobResult } from '../backup-job/backup-job-contract.ts';
import { BACKUP_JOB_CONTAINER, backupJobName, desiredBackupJob, desiredBackupServiceAccount, type BackupJobRequest } from '../desired/desired-backup-job.ts';
import type { BackupFailureReason } from '../desired/desired-backup-status.ts';
import type { BackupStage } from '../dump/run-backup.ts';
import { FIELD_MANAGER } from './operator-context.ts';

/**
 * Starting a backup Job and reading what it did. The Job is the record of a running backup: whichever replica leads
 * finds it by name, waits for it, and reads its outcome from its Pod's termination message; nothing about it is kept
 * in the operator's memory.
 */

export type BackupJob = ObjectOf<typeof Resources.Job>;

/** The label the Job controller puts on a Job's Pods. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

/** Creates the backup's Job (and its ServiceAccount); a Job this backup already has is returned as it is. */
export async function startBackupJob(client: KubeClient, request: BackupJobRequest): Promise<BackupJob> {
  await client.apply(Resources.ServiceAccount, desiredBackupServiceAccount(request.postgresql), { fieldManager: FIELD_MANAGER, force: true });
  const desired = desiredBackupJob(request);
  try {
    return await client.create(Resources.Job, desired);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const existing = await client.get(Resources.Job, { namespace: desired.metadata.namespace, name: desired.metadata.name });
    if (existing !== undefined && isControlledBy(existing, request.backup)) return existing;
    throw new Error(`a Job named ${desired.metadata.name} exists and belongs to something else: delete or rename it`, { cause: error });
  }
}

/** The backup's Job: from the cache, else (the cache may not have our own create yet) from the API server. */
export async function findBackupJob(
  read: (key: { namespace: string; name: string }) => Promise<BackupJob | undefined>,
  client: KubeClient,
  backup: PostgreSQLBackup,
): Promise<BackupJob | undefined> {
  const key = { namespace: backup.metadata.namespace ?? '', name: backupJobName(backup) };
  const job = (await read(key)) ?? (await client.get(Resources.Job, key));
  return job !== undefined && isControlledBy(job, backup) ? job : undefined;
}

export type JobOutcome =
  | { finished: false }
  | { finished: true; succeeded: true; seconds: number }
  /** `reason`: a failure with a cause of its own, for the backup's status. */
  | { finished: true; succeeded: false; seconds: number; error: string; reason?: BackupFailureReason };

/**
 * The failures no later backup gets past by itself, so that alerts and people can tell them apart: a Job that failed at
 * stage Tools found no pg_dump or pg_restore of the server's major (run-backup.ts).
 */
const REASON_OF_STAGE: Partial<Record<BackupStage, BackupFailureReason>> = { Tools: 'PgToolMissing' };

type BackupPod = ObjectOf<typeof Resources.Pod>;

const conditionTrue = (job: BackupJob, type: string) => job.status?.conditions?.find((c) => c.type === type && c.status === 'True');

type ContainerEnd = ReturnType<typeof endedContainer>;

/** How the backup container of the Job's Pod ended, once it has. */
function endedContainer(pods: readonly BackupPod[]) {
  return pods.flatMap((pod) => pod.status?.containerStatuses ?? []).find((s) => s.name === BACKUP_JOB_CONTAINER)?.state?.terminated;
}

/**
 * Whether the Job has finished and how. A backup that succeeded is taken from its Pod as soon as the container has
 * exited 0 with a Completed termination message: the Job controller batches Pod updates and marks the Job Complete
 * about a second later (measured: 1.0 s of a 2.0 s start overhead), and with restartPolicy Never and no retries
 * (backoffLimit 0) that exit is the Job's end. A failure waits for the Job's Failed condition, so that nothing the Job
 * controller would still do (a Pod deleted before it ran, a deadline) is judged ahead of it; its message is the Job's
 * own words from its termination message (with a reason for a failure of a cause of its own), and a Pod that ended
 * without writing one (killed, out of memory) is described by how it ended. `pods` are the Job's Pods as the cache has them.
 */
export async function jobOutcome(client: KubeClient, job: BackupJob, pods: readonly BackupPod[]): Promise<JobOutcome> {
  const complete = conditionTrue(job, 'Complete');
  const failed = conditionTrue(job, 'Failed');
  const ended = endedContainer(pods);
  const exitedCompleted = ended?.exitCode === 0 && parseBackupJobResult(ended.message)?.result === 'Completed';
  if (complete === undefined && failed === undefined && !exitedCompleted) return { finished: false };
  const start = parseMetav1Time(job.status?.startTime);
  const end = parseMetav1Time(job.status?.completionTime) ?? parseMetav1Time((complete ?? failed)?.lastTransitionTime) ?? parseMetav1Time(ended?.finishedAt);
  const seconds = start !== undefined && end !== undefined ? Math.max(0, (end.getTime() - start.getTime()) / 1000) : 0;
  if (complete !== undefined || (failed === undefined && exitedCompleted)) return { finished: true, succeeded: true, seconds };
  return { finished: true, succeeded: false, seconds, ...(await failureOf(client, job, ended, failed?.reason, failed?.message)) };
}

/**
 * A failed Job in its own words. `cachedEnd` is how its container ended as the cache has it; the Job's Failed
 * condition can reach the cache before the Pod's last update does, and then the Pod is read from the API server.
 */
async function failureOf(
  client: KubeClient,
  job: BackupJob,
  cachedEnd: ContainerEnd | undefined,
  reason: string | undefined,
  message: string | undefined,
): Promise<{ error: string; reason?: BackupFailureReason }> {
  const namespace = job.metadata?.namespace ?? '';
  const name = job.metadata?.name ?? '';
  const terminated = cachedEnd ?? endedContainer((await client.list(Resources.Pod, { namespace, labelSelector: `${JOB_NAME_LABEL}=${name}` })).items);
  const result: BackupJobResult | undefined = parseBackupJobResult(terminated?.message);
  if (result?.result === 'Failed') {
    const stageReason = result.stage === undefined ? undefined : REASON_OF_STAGE[result.stage];
    return { error: result.error, ...(stageReason === undefined ? {} : { reason: stageReason }) };
  }
  if (terminated !== undefined) {
    const how = terminated.reason === 'OOMKilled'
      ? 'was killed for using more memory than its limit: raise spec.backup.job.resources.limits.memory'
      : `exited with code ${terminated.exitCode}${terminated.reason === undefined ? '' : ` (${terminated.reason})`}`;
    return { error: `the backup Job ${name} ${how}; see kubectl logs -n ${namespace} job/${name}` };
  }
  return { error: `the backup Job ${name} failed${reason === undefined ? '' : ` (${reason})`}${message === undefined ? '' : `: ${message}`}` };
}

/** A Job whose backup is recorded goes at once, with its Pod (Jobs orphan their Pods unless told otherwise). */
export async function deleteBackupJob(client: KubeClient, job: BackupJob): Promise<void> {
  await client.delete(Resources.Job, { namespace: job.metadata?.namespace ?? '', name: job.metadata?.name ?? '' }, {
    propagationPolicy: 'Background',
    preconditions: { uid: job.metadata?.uid ?? '' },
  });
}
