import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApplyConfiguration, KubeClient } from '../client/kube-client.ts';
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
 * Writes are server-side applies of the whole status by the controller's field manager (controller-runtime's
 * `SubResource("status").Apply`). They carry no resourceVersion, so a reconcile that runs before the cache has seen
 * the controller's own previous status write does not fail with 409 Conflict and retry — the everyday "the object has
 * been modified" error of controller-runtime operators. The status is always computed from the cache as a whole, so
 * the last write is the right one; a change made meanwhile queues another reconcile that writes again.
 *
 * `writes` and `skipped` count what happened, for tests and benchmarks.
 */
export class StatusWriter {
  readonly #client: Pick<KubeClient, 'applyStatus'>;
  readonly #fieldManager: string;
  #writes = 0;
  #skipped = 0;

  constructor(client: Pick<KubeClient, 'applyStatus'>, options: StatusWriterOptions = {}) {
    this.#client = client;
    this.#fieldManager = options.fieldManager ?? 'controller-core';
  }

  /** Status writes sent to the API server, failed ones included. */
  get writes(): number {
    return this.#writes;
  }

  /** Writes not sent because the status was already as asked. */
  get skipped(): number {
    return this.#skipped;
  }

  /**
   * Sets the status of `current` to `status`. Returns the object the API server stored, or `current` itself when
   * `status` equals its status (as JSON, whatever the key order) and nothing was sent.
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
    const { name, namespace } = current.metadata ?? {};
    if (name === undefined || name === '') throw new Error(`StatusWriter: the ${ref.kind} has no metadata.name`);
    this.#writes++;
    const metadata = namespace === undefined || namespace === '' ? { name } : { name, namespace };
    return this.#client.applyStatus(ref, { metadata, status } as ApplyConfiguration<T>, { fieldManager: this.#fieldManager, force: true });
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
