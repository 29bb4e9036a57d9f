import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Resources, type ResourceRef } from '../client/resources.ts';
import type { ObjectKey } from '../objects/object-key.ts';
import { asReconciler, type ObjectReconciler } from './object-reconciler.ts';
import type { ReconcileContext, ReconcileRequest } from './reconciler.ts';

function contextFor(request: ReconcileRequest): ReconcileContext {
  return { request, reasons: [], log: pino({ enabled: false }), signal: new AbortController().signal, reconcileID: 'test' };
}

const stored: V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'present', uid: 'u1' } };
/** A cache holding one ConfigMap, default/present. */
const reader = {
  get: <T extends KubernetesObject>(_ref: ResourceRef<T>, key: ObjectKey): Promise<T | undefined> =>
    Promise.resolve(key.namespace === 'default' && key.name === 'present' ? (stored as T) : undefined),
};

/** Records what the adapter handed it, as a reconciler with state of its own would see it. */
class RecordingReconciler implements ObjectReconciler<V1ConfigMap> {
  readonly reconciled: string[] = [];
  readonly forgotten: string[] = [];
  reconcile(object: V1ConfigMap): Promise<{ requeueAfterMs: number }> {
    this.reconciled.push(object.metadata?.uid ?? '');
    return Promise.resolve({ requeueAfterMs: 5 });
  }
  gone(request: ReconcileRequest): void {
    this.forgotten.push(request.key);
  }
}

describe('asReconciler (controller-runtime reconcile.AsReconciler)', () => {
  it('hands the reconciler the cached object and returns its result', async () => {
    const recording = new RecordingReconciler();
    const reconcile = asReconciler(reader, Resources.ConfigMap, recording);
    const result = await reconcile(contextFor({ key: 'default/present', namespace: 'default', name: 'present' }));
    expect(result).toEqual({ requeueAfterMs: 5 });
    expect(recording.reconciled).toEqual(['u1']);
    expect(recording.forgotten).toEqual([]);
  });

  it('calls gone, not reconcile, for an object the cache does not hold, and returns nothing', async () => {
    const recording = new RecordingReconciler();
    const reconcile = asReconciler(reader, Resources.ConfigMap, recording);
    expect(await reconcile(contextFor({ key: 'default/deleted', namespace: 'default', name: 'deleted' }))).toBeUndefined();
    expect(recording.reconciled).toEqual([]);
    expect(recording.forgotten).toEqual(['default/deleted']);
  });

  it('returns nothing for a missing object when the reconciler keeps nothing to forget', async () => {
    const calls: string[] = [];
    const reconcile = asReconciler(reader, Resources.ConfigMap, { reconcile: (object) => { calls.push(object.metadata?.name ?? ''); return Promise.resolve(undefined); } });
    expect(await reconcile(contextFor({ key: 'default/deleted', namespace: 'default', name: 'deleted' }))).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
