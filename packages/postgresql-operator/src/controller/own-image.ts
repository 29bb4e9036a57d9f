import { Resources, type KubeClient } from '@k8s-operators/controller-core';

/** The container of the operator's Deployment. */
const MANAGER_CONTAINER = 'manager';

/**
 * The image the operator's own Pod runs: what its backup Jobs run, so a backup is made by exactly the code and client
 * tools of the operator that started it, and an upgrade of the operator upgrades its Jobs. Undefined outside a Pod.
 */
export async function ownImage(client: KubeClient, podName: string, namespace: string | undefined): Promise<string | undefined> {
  if (namespace === undefined || namespace === '') return undefined;
  const pod = await client.get(Resources.Pod, { namespace, name: podName });
  const containers = pod?.spec?.containers ?? [];
  return (containers.find((c) => c.name === MANAGER_CONTAINER) ?? (containers.length === 1 ? containers[0] : undefined))?.image;
}
