import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import { setStatusCondition, type Condition, type NewCondition } from '../conditions.ts';
import { jsonEqual } from './json-equal.ts';

export interface StatusWriterOptions {
  /** Recorded in managedFields as the writer of `status`. Default: the server's choice (from the User-Agent). */
  fieldManager?: string;
}

/** The status fields {@link StatusWriter.writeConditions} maintains; any status with conditions has them. */
export interface ConditionedStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}

export interface StatusUpdate<S> {
  /** Conditions to set, with `setStatusCondition` semantics; conditions not named here are kept as they are. */
  conditions?: readonly NewCondition[];
  /**
   * The `.metadata.generation` this status was computed from, written as `status.observedGeneration` and as the
   * default `observedGeneration` of each condition. Default: both left as they are.
   */
  observedGeneration?: number;
  /** Other status fields to set (e.g. `phase`); fields not named keep their current value. Default none. */
  fields?: Partial<S>;
  /** The time stamped on conditions whose status changes. Default: now. */
  now?: Date;
}

/**
 * The status an update leads to: `fields` over the current status, then `observedGeneration`, then each condition set
 * with `setStatusCondition`, so a condition's `lastTransitionTime` moves only when its `status` does.
 */
export function nextStatus<S extends ConditionedStatus>(current: S | undefined, update: StatusUpdate<S>): S {
  const { conditions = [], observedGeneration, fields, now = new Date() } = update;
  const status: S = { ...current, ...fields } as S;
  if (observedGeneration !== undefined) status.observedGeneration = observedGeneration;
  if (conditions.length > 0) {
    let list = status.conditions;
    for (const condition of conditions) {
      list = setStatusCondition(list, { observedGeneration, ...condition }, now).conditions;
    }
    status.conditions = list;
  }
  return status;
}

/**
 * Writes `status` through the status subresource, and only when it changed: a reconcile that finds everything in place
 * sends nothing, which is what keeps a fleet of controllers from hammering the API server with no-op updates.
 *
 * Writes are conditional on the object's resourceVersion. When someone else wrote the object since it was read, the
 * API server answers 409 and the `ApiError` (see `isConflict`) propagates: the reconcile fails, is requeued, and runs
 * again on the fresh object from the cache. Retrying here with the same stale object would only conflict again, and
 * retrying with a re-read one would compute status from a spec the reconcile never saw.
 *
 * `writes` and `skipped` count what happened, for tests and benchmarks.
 */
export class StatusWriter {
  readonly #client: Pick<KubeClient, 'updateStatus'>;
  readonly #fieldManager: string | undefined;
  #writes = 0;
  #skipped = 0;

  constructor(client: Pick<KubeClient, 'updateStatus'>, options: StatusWriterOptions = {}) {
    this.#client = client;
    this.#fieldManager = options.fieldManager;
  }

  /** Status writes sent to the API server, failed ones (conflicts) included. */
  get writes(): number {
    return this.#writes;
  }

  /** Writes not sent because the status was already as asked. */
  get skipped(): number {
    return this.#skipped;
  }

  /**
   * Sets the status of `current` (as read, with its resourceVersion) to `status`. Returns the object the API server
   * stored, or `current` itself when `status` equals its status (as JSON, whatever the key order) and nothing was sent.
   */
  async write<T extends KubernetesObject & { status?: unknown }>(
    ref: ResourceRef<T>,
    current: T,
    status: NonNullable<T['status']>,
  ): Promise<T> {
    if (jsonEqual(current.status, status)) {
      this.#skipped++;
      return current;
    }
    if (current.metadata?.resourceVersion === undefined || current.metadata.resourceVersion === '') {
      throw new Error(
        `StatusWriter: ${ref.kind} ${current.metadata?.name ?? ''} has no resourceVersion; pass the object as read from ` +
          'the API server so the write cannot overwrite a newer status',
      );
    }
    this.#writes++;
    const options = this.#fieldManager === undefined ? {} : { fieldManager: this.#fieldManager };
    return this.#client.updateStatus(ref, { ...current, status }, options);
  }

  /** Computes the status with {@link nextStatus} and {@link write}s it if it differs from the current one. */
  writeConditions<T extends KubernetesObject & { status?: ConditionedStatus }>(
    ref: ResourceRef<T>,
    current: T,
    update: StatusUpdate<NonNullable<T['status']>>,
  ): Promise<T> {
    return this.write(ref, current, nextStatus(current.status, update));
  }
}
