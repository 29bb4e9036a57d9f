import type { KubernetesObject } from '@kubernetes/client-node';
import { Resources, type InformerScope, type Manager, type ObjectOf, type ResourceRef, type SharedInformer } from '@k8s-operators/controller-core';
import { PostgreSQLBackupRef, PostgreSQLRef } from '../api/postgresql-refs.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { INSTANCE_LABEL } from './labels.ts';

/**
 * The informers both controllers read, created once with the scopes the controllers' watches use (so each resource
 * is listed and watched once), and the indexes that find one PostgreSQL's pods and backups without scanning.
 */

/** Pods and backups of a PostgreSQL, by `namespace/name`. */
export const BY_POSTGRESQL_INDEX = 'exp.wheel.jp/postgresql';

/** Only the database pods the operator made: they carry the instance label. */
export const POD_SCOPE: Omit<InformerScope, 'namespace'> = { labelSelector: INSTANCE_LABEL };

export interface OperatorInformers {
  postgresqls: SharedInformer<PostgreSQL>;
  backups: SharedInformer<PostgreSQLBackup>;
  pods: SharedInformer<ObjectOf<typeof Resources.Pod>>;
  deployments: SharedInformer<ObjectOf<typeof Resources.Deployment>>;
  services: SharedInformer<ObjectOf<typeof Resources.Service>>;
  claims: SharedInformer<ObjectOf<typeof Resources.PersistentVolumeClaim>>;
}

const inNamespace = (obj: KubernetesObject, name: string | undefined): string[] =>
  name === undefined || name === '' ? [] : [`${obj.metadata?.namespace ?? ''}/${name}`];

export function operatorInformers(manager: Manager): OperatorInformers {
  const informer = <T extends KubernetesObject>(ref: ResourceRef<T>, scope: Omit<InformerScope, 'namespace'> = {}): SharedInformer<T> =>
    manager.informerFor(ref, scope);
  const informers: OperatorInformers = {
    postgresqls: informer(PostgreSQLRef),
    backups: informer(PostgreSQLBackupRef),
    pods: informer(Resources.Pod, POD_SCOPE),
    deployments: informer(Resources.Deployment),
    services: informer(Resources.Service),
    claims: informer(Resources.PersistentVolumeClaim),
  };
  informers.backups.addIndexer(BY_POSTGRESQL_INDEX, (backup) => inNamespace(backup, backup.spec.postgresql));
  informers.pods.addIndexer(BY_POSTGRESQL_INDEX, (pod) => inNamespace(pod, pod.metadata?.labels?.[INSTANCE_LABEL]));
  return informers;
}
