import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApplyConfiguration, KubeClient } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import { getControllerOf, isControlledBy, withControllerReference } from '../objects/owner-references.ts';

export interface ApplyOwnedOptions {
  /** The object that controls what is applied: it becomes the controller owner reference (blockOwnerDeletion true). */
  owner: KubernetesObject;
  /** The field manager that owns the applied fields, e.g. `maintpage-operator`. Keep it stable across releases. */
  fieldManager: string;
  /**
   * Take over fields another manager set (a `kubectl edit`, say) instead of failing with a 409 conflict. Default true:
   * a controller's desired state is the truth for the fields it declares, as kubebuilder's SSA guidance advises.
   */
  force?: boolean;
}

/**
 * Server-side applies `desired`, an object the owner controls: the owner is set as its controller (so `owns()` watches
 * map it back and the garbage collector deletes it with the owner), and every field in `desired` is owned by
 * `fieldManager`. Returns the object as applied. Applying the same desired state again changes nothing on the server,
 * not even the resourceVersion, so a controller may apply on every reconcile.
 *
 * Apply creates or adopts whatever has the name. Before applying, check the existing object (from the cache) with
 * {@link ownershipConflict}, so an object someone else made is reported rather than taken over.
 */
export function applyOwned<T extends KubernetesObject>(
  client: Pick<KubeClient, 'apply'>,
  ref: ResourceRef<T>,
  desired: ApplyConfiguration<T>,
  options: ApplyOwnedOptions,
): Promise<T> {
  const { owner, fieldManager, force = true } = options;
  if (ref.namespaced && (desired.metadata.namespace ?? '') === '') {
    // Said here, before the owner-reference check would call the object cluster-scoped.
    throw new Error(`applyOwned: ${ref.kind} ${desired.metadata.name} is namespaced: set metadata.namespace (the owner's)`);
  }
  // Only metadata.namespace and metadata.ownerReferences are read, which any apply configuration carries as in an object.
  const { ownerReferences } = withControllerReference(desired as KubernetesObject, owner, { blockOwnerDeletion: true });
  const owned = { ...desired, metadata: { ...desired.metadata, ownerReferences } } as ApplyConfiguration<T>;
  return client.apply(ref, owned, { fieldManager, force });
}

/**
 * Why the existing object of a name cannot be treated as the owner's, or undefined when it can: it does not exist, or
 * the owner (compared by UID) controls it. An object that exists but is not controlled by the owner — made by hand, by
 * another controller, or left by an earlier owner of the same name — must not be touched: operators report
 * `Ready=False` with reason `Conflict` and this description as the message.
 */
export function ownershipConflict(existing: KubernetesObject | undefined, owner: KubernetesObject): string | undefined {
  if (existing === undefined || isControlledBy(existing, owner)) return undefined;
  const what = `${existing.kind ?? 'object'} ${describeName(existing)}`;
  const ownerName = `${owner.kind ?? 'object'} ${describeName(owner)}`;
  const controller = getControllerOf(existing);
  if (controller === undefined) {
    return `${what} already exists and is not controlled by ${ownerName}; delete or rename it so ${ownerName} can manage it`;
  }
  if (controller.kind === owner.kind && controller.name === owner.metadata?.name) {
    return (
      `${what} already exists and is controlled by an earlier ${ownerName} (uid ${controller.uid}), not by this one ` +
      `(uid ${owner.metadata.uid ?? 'unknown'}); it goes once the garbage collector deletes it`
    );
  }
  return `${what} already exists and is controlled by ${controller.kind} ${controller.name}, not by ${ownerName}`;
}

function describeName(obj: KubernetesObject): string {
  const namespace = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}
