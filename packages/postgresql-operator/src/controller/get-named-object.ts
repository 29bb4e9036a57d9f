import { isForbidden, type KubeClient, type ResourceRef } from '@k8s-operators/controller-core';
import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * One object a PostgreSQL names (its password Secret, the bucket's credentials, a CA bundle), read with `get` from the
 * API server: the operator lists and watches none of them. Being refused means the installed ClusterRole lacks the
 * verb, which the error says, with the field that named the object.
 */
export async function getNamedObject<T extends KubernetesObject>(client: KubeClient, ref: ResourceRef<T>, key: { namespace: string; name: string }, field: string): Promise<T | undefined> {
  try {
    return await client.get(ref, key);
  } catch (error) {
    if (!isForbidden(error)) throw error;
    throw new Error(
      `the operator may not read ${ref.kind} ${key.name} in namespace ${key.namespace} (${field}): its ClusterRole needs get on ` +
        `${ref.resource} (deploy/postgresql-operator/rbac/role.yaml)`,
      { cause: error },
    );
  }
}
