import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Runs on every object before it is frozen and cached, to keep only what the cache needs. It receives a fresh object
 * parsed from the server's answer, which it may change in place, and returns the object to store.
 */
export type ObjectTransform = <T extends KubernetesObject>(obj: T) => T;

/**
 * The default transform, as controller-runtime's `TransformStripManagedFields`: `metadata.managedFields` is often the
 * largest part of an object and controllers never read it from the cache.
 */
export const stripManagedFields: ObjectTransform = (obj) => {
  if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
  return obj;
};
