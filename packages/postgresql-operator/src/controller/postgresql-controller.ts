import type { KubernetesObject } from '@kubernetes/client-node';
import { Resources, asReconciler, generationChanged, or, type Controller, type Predicate } from '@k8s-operators/controller-core';
import { PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import { INSTANCE_LABEL } from '../desired/labels.ts';
import type { OperatorContext } from './operator-context.ts';
import { POD_SCOPE } from './operator-indexes.ts';
import { PostgreSQLReconciler } from './postgresql-reconciler.ts';

/** Deletion sets deletionTimestamp without touching the spec; the finalizer must see it. */
const deletionStarted: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.deletionTimestamp === undefined && newObj.metadata?.deletionTimestamp !== undefined,
};

const postgresqlOfLabelled = (obj: KubernetesObject): string[] => {
  const pg = obj.metadata?.labels?.[INSTANCE_LABEL];
  return pg === undefined ? [] : [`${obj.metadata?.namespace ?? ''}/${pg}`];
};

const postgresqlOfBackup = (backup: { metadata?: { namespace?: string }; spec: { postgresql: string } }): string[] =>
  [`${backup.metadata?.namespace ?? ''}/${backup.spec.postgresql}`];

/**
 * Registers the PostgreSQL controller (PostgreSQLReconciler): for each PostgreSQL it applies the Service, the
 * Deployment (and the data claim when `spec.storage` is set), restores each new pod before labelling it `appReady=ok`,
 * creates the scheduled PostgreSQLBackups, applies retention, keeps status and metrics, and on deletion takes the
 * final backup. Its pods and backups queue it too.
 */
export function setupPostgreSQLController(context: OperatorContext): Controller {
  const { manager } = context;
  return manager
    .controller('postgresql')
    .for(PostgreSQLRef, { predicates: [or(generationChanged(), deletionStarted)] })
    .owns(Resources.Deployment)
    .owns(Resources.Service)
    .owns(Resources.PersistentVolumeClaim)
    .watches(Resources.Pod, postgresqlOfLabelled, { scope: POD_SCOPE })
    .watches(PostgreSQLBackupRef, postgresqlOfBackup)
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(asReconciler(manager.reader, PostgreSQLRef, new PostgreSQLReconciler(context)));
}
