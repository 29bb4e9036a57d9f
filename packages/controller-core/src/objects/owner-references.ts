import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';

/**
 * Owner-reference helpers after controller-runtime's `controllerutil.SetControllerReference` and apimachinery's
 * `metav1.GetControllerOf` / `IsControlledBy`. Pure functions: they return new values and never mutate their input.
 */

/**
 * `V1OwnerReference`'s fields as a plain-object type: client-node's models are classes, and we build plain objects.
 * Assignable wherever a `V1OwnerReference` is expected.
 */
export type OwnerReference = { [Field in keyof V1OwnerReference]: V1OwnerReference[Field] };

export interface ControllerReferenceOptions {
  /**
   * Whether the owner's foreground deletion waits for this object (`blockOwnerDeletion`). Default true, as
   * controller-runtime's `SetControllerReference`. Setting it needs `update` on the owner's `finalizers` subresource.
   */
  blockOwnerDeletion?: boolean;
}

function requireField(owner: KubernetesObject, field: string, value: string | undefined): string {
  if (value === undefined || value === '') {
    throw new Error(
      `controllerReference: the owner has no ${field}; pass an object read from the API server (apiVersion, kind, ` +
        'metadata.name and metadata.uid are all needed)',
    );
  }
  return value;
}

/** An owner reference that makes `owner` the controller of the object it is put on. */
export function controllerReference(
  owner: KubernetesObject,
  { blockOwnerDeletion = true }: ControllerReferenceOptions = {},
): OwnerReference {
  return {
    apiVersion: requireField(owner, 'apiVersion', owner.apiVersion),
    kind: requireField(owner, 'kind', owner.kind),
    name: requireField(owner, 'metadata.name', owner.metadata?.name),
    uid: requireField(owner, 'metadata.uid', owner.metadata?.uid),
    controller: true,
    blockOwnerDeletion,
  };
}

/** The object's controller reference (the owner reference with `controller: true`), if any. */
export function getControllerOf(obj: KubernetesObject): V1OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/** Whether `owner` (compared by UID, as apimachinery does) is the object's controller. */
export function isControlledBy(obj: KubernetesObject, owner: KubernetesObject): boolean {
  const uid = owner.metadata?.uid;
  return uid !== undefined && getControllerOf(obj)?.uid === uid;
}

/** The API group of an apiVersion: `apps` for `apps/v1`, '' for the core `v1`. */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/**
 * The object's owner references with `owner` set as its controller, as `SetControllerReference` does: an existing
 * reference to the same owner (same group, kind and name; any version) is replaced, others are kept. Throws, like
 * controller-runtime, when another object already controls it, or when the owner is namespaced and the object is in
 * another namespace or cluster-scoped (the garbage collector would treat such a reference as unresolvable).
 */
export function withControllerReference(
  obj: KubernetesObject,
  owner: KubernetesObject,
  options: ControllerReferenceOptions = {},
): { ownerReferences: OwnerReference[]; changed: boolean } {
  const reference = controllerReference(owner, options);
  const ownerNamespace = owner.metadata?.namespace ?? '';
  const objectNamespace = obj.metadata?.namespace ?? '';
  if (ownerNamespace !== '' && ownerNamespace !== objectNamespace) {
    throw new Error(
      `withControllerReference: ${reference.kind} ${ownerNamespace}/${reference.name} is namespaced and cannot own ` +
        (objectNamespace === '' ? 'a cluster-scoped object' : `an object in namespace ${objectNamespace}`),
    );
  }
  const current = getControllerOf(obj);
  const sameOwner = (ref: V1OwnerReference): boolean =>
    groupOf(ref.apiVersion) === groupOf(reference.apiVersion) && ref.kind === reference.kind && ref.name === reference.name;
  if (current !== undefined && !sameOwner(current)) {
    throw new Error(
      `withControllerReference: the object is already controlled by ${current.kind} ${current.name}; an object has ` +
        'at most one controller',
    );
  }
  const references = obj.metadata?.ownerReferences ?? [];
  const index = references.findIndex(sameOwner);
  const existing = references[index];
  if (existing === undefined) return { ownerReferences: [...references, reference], changed: true };
  const unchanged =
    existing.apiVersion === reference.apiVersion &&
    existing.uid === reference.uid &&
    existing.controller === true &&
    existing.blockOwnerDeletion === reference.blockOwnerDeletion;
  const ownerReferences = [...references];
  ownerReferences[index] = reference;
  return { ownerReferences: unchanged ? [...references] : ownerReferences, changed: !unchanged };
}
