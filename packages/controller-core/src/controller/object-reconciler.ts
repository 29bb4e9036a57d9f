import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceRef } from '../client/resources.ts';
import type { ObjectKey } from '../objects/object-key.ts';
import type { ReconcileContext, ReconcileRequest, ReconcileResult, Reconciler } from './reconciler.ts';

/**
 * A reconciler of one kind's objects, as controller-runtime's `reconcile.ObjectReconciler`: it is handed the object,
 * so no reconciler fetches it or handles "not found" by hand. Pass it to `complete()` through {@link asReconciler}.
 */
export interface ObjectReconciler<T extends KubernetesObject> {
  /** One reconcile of the object as the manager's cache holds it, with this process's own writes. */
  reconcile(object: T, context: ReconcileContext): Promise<ReconcileResult | undefined>;
  /**
   * The object is not in the cache: deleted (its owned objects go with it, through owner references) or never there.
   * The place to forget what the reconciler keeps per object (metric series, memory). Optional: controller-runtime's
   * adapter just returns, and so does this one without it.
   */
  gone?(request: ReconcileRequest, context: ReconcileContext): void | Promise<void>;
}

/** What the adapter needs of a reader; the manager's `reader` is one. */
export interface ObjectGetter {
  get<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey): Promise<T | undefined>;
}

/**
 * The `Reconciler` a controller runs for an {@link ObjectReconciler}, as controller-runtime's `reconcile.AsReconciler`
 * (pkg/reconcile/reconcile.go): it reads the object from `reader` (the manager's cache reader, which shows this
 * process's own writes) and, when it is not there, calls `gone` and returns nothing, which resets the key's back-offs.
 */
export function asReconciler<T extends KubernetesObject>(
  reader: ObjectGetter,
  ref: ResourceRef<T>,
  reconciler: ObjectReconciler<T>,
): Reconciler {
  return async (context) => {
    const object = await reader.get(ref, context.request);
    if (object === undefined) {
      await reconciler.gone?.(context.request, context);
      return undefined;
    }
    return reconciler.reconcile(object, context);
  };
}
