import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Finalizer helpers in the spirit of controller-runtime's `controllerutil.AddFinalizer` / `RemoveFinalizer` /
 * `ContainsFinalizer`, but pure: they return the new list and whether it changed, so the caller patches only when
 * needed and never mutates a (frozen) cached object.
 */

export function hasFinalizer(obj: KubernetesObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** The object's finalizers with `finalizer` appended if missing. */
export function withFinalizer(obj: KubernetesObject, finalizer: string): { finalizers: string[]; changed: boolean } {
  const finalizers = obj.metadata?.finalizers ?? [];
  if (finalizers.includes(finalizer)) return { finalizers: [...finalizers], changed: false };
  return { finalizers: [...finalizers, finalizer], changed: true };
}

/** The object's finalizers without `finalizer` (every occurrence, as controller-runtime removes duplicates too). */
export function withoutFinalizer(obj: KubernetesObject, finalizer: string): { finalizers: string[]; changed: boolean } {
  const finalizers = obj.metadata?.finalizers ?? [];
  const kept = finalizers.filter((f) => f !== finalizer);
  return { finalizers: kept, changed: kept.length !== finalizers.length };
}
