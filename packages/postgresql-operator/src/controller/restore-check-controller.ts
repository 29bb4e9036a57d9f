import type { KubernetesObject } from '@kubernetes/client-node';
import { Resources, annotationsChanged, asReconciler, generationChanged, or, type Controller } from '@k8s-operators/controller-core';
import { PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import { RESTORE_CHECK_LABEL } from '../desired/desired-restore-check-pod.ts';
import type { OperatorContext } from './operator-context.ts';
import { RESTORE_CHECK_POD_SCOPE, RestoreCheckReconciler } from './restore-check-reconciler.ts';

const postgresqlOfScratchPod = (pod: KubernetesObject): string[] => {
  const pg = pod.metadata?.labels?.[RESTORE_CHECK_LABEL];
  return pg === undefined ? [] : [`${pod.metadata?.namespace ?? ''}/${pg}`];
};

/**
 * Registers the restore drill controller (RestoreCheckReconciler), apart from the PostgreSQL controller so that a
 * drill's restore, which takes as long as the backup is large, never holds up the live database's reconciles (its
 * restores and backups). Queued by the PostgreSQL (its spec, and the `exp.wheel.jp/restore-check` annotation), its
 * scratch pod, and its backups (a first usable backup lets an owed drill run).
 */
export function setupRestoreCheckController(context: OperatorContext): Controller {
  const { manager } = context;
  return manager
    .controller('restorecheck')
    .for(PostgreSQLRef, { predicates: [or(generationChanged(), annotationsChanged())] })
    .watches(Resources.Pod, postgresqlOfScratchPod, { scope: RESTORE_CHECK_POD_SCOPE })
    .watches(PostgreSQLBackupRef, (backup) => [`${backup.metadata.namespace ?? ''}/${backup.spec.postgresql}`])
    .withOptions({ maxConcurrentReconciles: 2 })
    .complete(asReconciler(manager.reader, PostgreSQLRef, new RestoreCheckReconciler(context)));
}
