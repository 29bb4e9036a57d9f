import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApplyConfiguration, KubeClient } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import { getControllerOf, isControlledBy, withControllerReference } from '../objects/owner-references.ts';
import type { DesiredObject } from '../objects/owned-metadata.ts';

export interface ApplyOwnedOptions<T extends KubernetesObject = KubernetesObject> {
  /** The object that controls what is applied: it becomes the controller owner reference (blockOwnerDeletion true). */
  owner: KubernetesObject;
  /** The field manager that owns the applied fields, e.g. `maintpage-operator`. Keep it stable across releases. */
  fieldManager: string;
  /**
   * Take over fields another manager set (a `kubectl edit`, say) instead of failing with a 409 conflict. Default true:
   * a controller's desired state is the truth for the fields it declares, as kubebuilder's SSA guidance advises.
   */
  force?: boolean;
  /**
   * The object as the cache has it. When it already carries exactly this desired state (same applied-configuration
   * hash, and every desired field still has the desired value), nothing is sent: a reconcile woken by the owned
   * object's own events costs no request. Drift by others still changes a field and so is applied again.
   */
  current?: T | undefined;
}

/**
 * Annotation holding a hash of the last configuration applied, so a change that only removes a field (which a subset
 * comparison cannot see) still leads to an apply that removes it.
 */
export const APPLIED_HASH_ANNOTATION = 'controller-core.k8s-operators.io/applied-hash';

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Whether `actual` has every field of `desired` with the same value (arrays element by element, in order). */
export function containsDesired(actual: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    return Array.isArray(actual) && actual.length === desired.length && desired.every((d, i) => containsDesired(actual[i], d));
  }
  if (desired !== null && typeof desired === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([k, v]) => v === undefined || containsDesired(a[k], v));
  }
  return actual === desired;
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
  desired: ApplyConfiguration<T> | DesiredObject<T>,
  options: ApplyOwnedOptions<T>,
): Promise<T> {
  const { owner, fieldManager, force = true, current } = options;
  if (ref.namespaced && (desired.metadata.namespace ?? '') === '') {
    // Said here, before the owner-reference check would call the object cluster-scoped.
    throw new Error(`applyOwned: ${ref.kind} ${desired.metadata.name} is namespaced: set metadata.namespace (the owner's)`);
  }
  // Only metadata.namespace and metadata.ownerReferences are read, which any apply configuration carries as in an object.
  const { ownerReferences } = withControllerReference(desired as KubernetesObject, owner, { blockOwnerDeletion: true });
  const hash = createHash('sha256').update(stableStringify(desired)).digest('hex').slice(0, 32);
  const annotations = { ...desired.metadata.annotations, [APPLIED_HASH_ANNOTATION]: hash };
  const owned = { ...desired, metadata: { ...desired.metadata, annotations, ownerReferences } } as ApplyConfiguration<T>;
  if (current?.metadata?.annotations?.[APPLIED_HASH_ANNOTATION] === hash && containsDesired(current, owned)) return Promise.resolve(current);
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
