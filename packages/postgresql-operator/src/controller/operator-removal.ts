import { isForbidden, kindBeingRemoved, type KubeClient } from '@k8s-operators/controller-core';

/**
 * Which of `crds` is being deleted (or is gone), the first found, or undefined: then the object a finalizer runs for
 * is being deleted because the operator is being uninstalled (`kubectl delete -k deploy/postgresql-operator`,
 * `kubectl delete -f install.yaml`, `helm uninstall` with crds.keep=false), not because anyone asked for that object to
 * go, and what it stands for (its stored dump, its data claim) is kept. Asked only for objects being deleted, one GET
 * per CRD per finalizer run. A refused GET is an error that names the missing permission: the finalizer stays, and the
 * object with it, rather than deleting data it cannot tell is wanted.
 */
export async function crdBeingRemoved(client: KubeClient, crds: readonly string[], signal: AbortSignal): Promise<string | undefined> {
  for (const crd of crds) {
    try {
      if (await kindBeingRemoved(client, crd, signal)) return crd;
    } catch (error) {
      if (!isForbidden(error)) throw error;
      throw new Error(
        `the operator may not read CustomResourceDefinition ${crd}, which tells it whether it is being uninstalled before it deletes data: its ClusterRole ` +
          'needs get on customresourcedefinitions.apiextensions.k8s.io for that name (deploy/postgresql-operator/rbac/role.yaml)',
        { cause: error },
      );
    }
  }
  return undefined;
}

/** How the Events and log lines name the reason. */
export const uninstalling = (crd: string): string => `CRD ${crd} is being deleted (the operator is being uninstalled)`;
