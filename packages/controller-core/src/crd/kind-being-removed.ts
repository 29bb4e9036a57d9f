// Whether a custom resource's kind is being removed: its CRD deleted (`kubectl delete -k deploy/<operator>`,
// `kubectl delete -f install.yaml`, `helm uninstall` with crds.keep=false). The API server then deletes every object of
// that kind, and each finalizer runs as if a user had deleted that object on purpose — deleting the VM, the stored
// backup, the database's volume. Nobody asked for that: they removed the operator. A finalizer asks this first and,
// when it is true, keeps what the object stands for and only lets the object go.
import type { KubeClient } from '../client/kube-client.ts';
import { Resources } from '../client/resources.ts';

/**
 * True when the CRD named `crdName` (plural.group) has a deletion timestamp, or is already gone. Read afresh with a
 * GET each time (a finalizer runs once per object; no CRD cache is worth its memory), so the operator needs `get` on
 * `customresourcedefinitions` for its own CRDs' names only.
 */
export async function kindBeingRemoved(client: KubeClient, crdName: string, signal?: AbortSignal): Promise<boolean> {
  const crd = await client.get(Resources.CustomResourceDefinition, { name: crdName }, signal === undefined ? {} : { signal });
  return crd === undefined || crd.metadata?.deletionTimestamp !== undefined;
}
