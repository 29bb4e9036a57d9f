import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiError, isNotFound } from '../client/errors.ts';
import type { KubeClient, Patch } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import { withFinalizer, withoutFinalizer } from '../objects/finalizers.ts';
import { keyOf } from '../objects/object-key.ts';

/**
 * Adds and removes finalizers with a test-and-set write: a JSON merge patch carrying the object's resourceVersion,
 * which the API server applies only if the object is still at that version (controller-runtime's
 * `MergeFromWithOptimisticLock`). The finalizer list is replaced whole, so without that precondition a concurrent
 * change to the list — another controller adding its own finalizer — would be lost. A stale object fails with 409
 * Conflict (`isConflict`): the reconcile is requeued and runs again on the fresh object.
 */

/**
 * Adds `finalizer` to the object's finalizers. Returns the updated object, or `obj` itself when the finalizer is
 * already there (nothing is sent). The API server refuses new finalizers on an object that is being deleted.
 */
export async function ensureFinalizer<T extends KubernetesObject>(
  client: Pick<KubeClient, 'patch'>,
  ref: ResourceRef<T>,
  obj: T,
  finalizer: string,
): Promise<T> {
  const { finalizers, changed } = withFinalizer(obj, finalizer);
  if (!changed) return obj;
  return client.patch(ref, keyOf(ref, obj), finalizersPatch(ref, obj, finalizers));
}

/**
 * Removes `finalizer` from the object's finalizers. Returns the updated object, `obj` itself when the finalizer is not
 * there (nothing is sent), or undefined when the object no longer exists — the finalizer is gone with it, so a 404 is
 * success. Removing the last finalizer of an object being deleted lets the API server delete it.
 */
export async function removeFinalizer<T extends KubernetesObject>(
  client: Pick<KubeClient, 'patch'>,
  ref: ResourceRef<T>,
  obj: T,
  finalizer: string,
): Promise<T | undefined> {
  const { finalizers, changed } = withoutFinalizer(obj, finalizer);
  if (!changed) return obj;
  const key = keyOf(ref, obj);
  try {
    return await client.patch(ref, key, finalizersPatch(ref, obj, finalizers));
  } catch (error) {
    // Only a 404 naming this object: one for an unserved resource (CRD not installed) names nothing and is an error.
    if (isNotFound(error) && error instanceof ApiError && error.details?.name === key.name) return undefined;
    throw error;
  }
}

function finalizersPatch(ref: ResourceRef, obj: KubernetesObject, finalizers: string[]): Patch {
  const resourceVersion = obj.metadata?.resourceVersion;
  if (resourceVersion === undefined || resourceVersion === '') {
    throw new Error(
      `${ref.kind} ${obj.metadata?.name ?? ''} has no resourceVersion; pass the object as read from the API server, ` +
        'the finalizer write is conditional on it',
    );
  }
  return { type: 'merge', patch: { metadata: { resourceVersion, finalizers } } };
}
