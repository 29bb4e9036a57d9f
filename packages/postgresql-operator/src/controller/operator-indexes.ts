import type { KubernetesObject } from '@kubernetes/client-node';
import { Resources, type InformerScope, type Manager, type ObjectOf } from '@k8s-operators/controller-core';
import { PostgreSQLBackupRef } from '../api/postgresql-refs.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import { INSTANCE_LABEL } from '../desired/labels.ts';

/**
 * The indexes that find one PostgreSQL's pods and backups in the manager's caches without scanning them, and the
 * reads through them. Both controllers read the same caches through `manager.reader`.
 */

/** Pods and backups of a PostgreSQL, by `namespace/name` of the PostgreSQL. */
export const BY_POSTGRESQL_INDEX = 'exp.wheel.jp/postgresql';

/** Only the database pods the operator made: they carry the instance label. */
export const POD_SCOPE: Omit<InformerScope, 'namespace'> = { labelSelector: INSTANCE_LABEL };

const inNamespace = (obj: KubernetesObject, name: string | undefined): string[] =>
  name === undefined || name === '' ? [] : [`${obj.metadata?.namespace ?? ''}/${name}`];

/** Adds the indexes to the manager's informers, before the manager starts. */
export function addPostgreSQLIndexes(manager: Manager): void {
  manager.informerFor(PostgreSQLBackupRef).addIndexer(BY_POSTGRESQL_INDEX, (backup) => inNamespace(backup, backup.spec.postgresql));
  manager.informerFor(Resources.Pod, POD_SCOPE).addIndexer(BY_POSTGRESQL_INDEX, (pod) => inNamespace(pod, pod.metadata?.labels?.[INSTANCE_LABEL]));
}

/** The backups of the PostgreSQL at `postgresqlKey` (`namespace/name`), from the cache. */
export function backupsOf(manager: Manager, postgresqlKey: string): Promise<PostgreSQLBackup[]> {
  return manager.reader.list(PostgreSQLBackupRef, { index: { name: BY_POSTGRESQL_INDEX, value: postgresqlKey } });
}

/** The database pods of the PostgreSQL at `postgresqlKey` (`namespace/name`), from the cache. */
export function podsOf(manager: Manager, postgresqlKey: string): Promise<ObjectOf<typeof Resources.Pod>[]> {
  return manager.reader.list(Resources.Pod, { scope: POD_SCOPE, index: { name: BY_POSTGRESQL_INDEX, value: postgresqlKey } });
}
