import { controllerReference } from '@k8s-operators/controller-core';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { instanceLabels } from './labels.ts';
import { instanceName, instanceNamespace } from './object-names.ts';

/**
 * Metadata of an object the PostgreSQL owns: its namespace, the instance labels, and the PostgreSQL as controller, so
 * deleting the PostgreSQL deletes the object (garbage collection) and changes to it requeue the PostgreSQL.
 */
export function ownedMetadata(postgresql: PostgreSQL, name: string): V1ObjectMeta {
  return {
    name,
    namespace: instanceNamespace(postgresql),
    labels: instanceLabels(instanceName(postgresql)),
    ownerReferences: [controllerReference(postgresql)],
  };
}
