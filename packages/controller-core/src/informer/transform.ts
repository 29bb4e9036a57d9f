import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Runs on every object before it is frozen and cached, to keep only what the cache needs. It receives a fresh object
 * parsed from the server's answer, which it may change in place, and returns the object to store.
 */
export type ObjectTransform = <T extends KubernetesObject>(obj: T) => T;

/**
 * The default transform, as controller-runtime's `TransformStripManagedFields`: `metadata.managedFields` is often the
 * largest part of an object and controllers never read it from the cache.
 *
 * `metadata` is rebuilt without the field rather than `delete`d from: deleting a property that is not the last one
 * added turns a V8 object into a hash table (a dictionary of about 400 bytes, and a map of its own once frozen), which
 * at 20,000 cached objects is 10 MiB of heap. A rebuilt object keeps the fast layout that same-shaped objects share.
 */
export const stripManagedFields: ObjectTransform = (obj) => {
  const metadata = obj.metadata;
  if (metadata?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...kept } = metadata;
  obj.metadata = kept;
  return obj;
};
