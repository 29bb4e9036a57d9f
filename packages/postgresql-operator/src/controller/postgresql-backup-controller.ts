import type { KubernetesObject } from '@kubernetes/client-node';
import { Resources, asReconciler, getControllerOf, objectKey, type Controller } from '@k8s-operators/controller-core';
import { PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import { INSTANCE_LABEL } from '../desired/labels.ts';
import type { OperatorContext } from './operator-context.ts';
import { BY_POSTGRESQL_INDEX, POD_SCOPE } from './operator-indexes.ts';
import { isPending, JOB_SCOPE, PostgreSQLBackupReconciler } from './postgresql-backup-reconciler.ts';

export { PENDING_DEADLINE_MS } from './postgresql-backup-reconciler.ts';

/**
 * Registers the PostgreSQLBackup controller (PostgreSQLBackupReconciler runs each backup once, as a Job). Besides its
 * own kind it watches what lets a waiting backup start (a pod that starts serving, a PostgreSQL that appears) and what
 * tells a running one ended (its Job, and the Job's Pod).
 */
export function setupBackupController(context: OperatorContext): Controller {
  const { manager } = context;
  // Reconciles run only once the manager starts the controller, so `controller` is set by then.
  const reconciler = new PostgreSQLBackupReconciler(context, (key, reason) => {
    controller.enqueue(key, reason);
  });

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
    .complete(asReconciler(manager.reader, PostgreSQLBackupRef, reconciler));
  return controller;
}
