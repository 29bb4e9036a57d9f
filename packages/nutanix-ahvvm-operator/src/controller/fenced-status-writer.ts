import { jsonEqual, type KubeClient } from '@k8s-operators/controller-core';
import { AhvVmRef } from '../api/ahvvm-ref.ts';
import type { AhvVm, AhvVmStatus } from '../api/ahvvm-resource.ts';

/**
 * Writes an AhvVm's status only if the object is still at the resourceVersion it was read at.
 *
 * controller-core's StatusWriter applies status without a precondition, on the grounds that a status computed from the
 * cache is always the right one. An AhvVm's status is not only a report: it is the operator's memory — the reserved
 * VM UUID, the task in flight, a power cycle half done. A status computed from a cache that has not yet seen the
 * previous write would drop that memory, and a reconcile that then finds no UUID creates a second VM (CAPX PR #767).
 * With the resourceVersion in the applied object the API server refuses such a write with 409 Conflict; the reconcile
 * fails before it sends anything to Prism, and runs again once the cache has caught up.
 */
export class FencedStatusWriter {
  readonly #client: Pick<KubeClient, 'applyStatus'>;
  readonly #fieldManager: string;

  constructor(client: Pick<KubeClient, 'applyStatus'>, fieldManager: string) {
    this.#client = client;
    this.#fieldManager = fieldManager;
  }

  /** Returns the stored object, or `current` itself when its status already is `status` (nothing is sent). */
  async write(current: AhvVm, status: AhvVmStatus): Promise<AhvVm> {
    if (jsonEqual(current.status, status)) return current;
    const { name, namespace, resourceVersion } = current.metadata;
    if (name === undefined || resourceVersion === undefined) throw new Error('an AhvVm read from the API server has a name and a resourceVersion');
    return this.#client.applyStatus(
      AhvVmRef,
      { metadata: { name, ...(namespace === undefined ? {} : { namespace }), resourceVersion }, status },
      { fieldManager: this.#fieldManager, force: true },
    );
  }
}
