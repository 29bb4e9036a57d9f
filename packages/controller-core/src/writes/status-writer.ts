import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApplyConfiguration, KubeClient } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import { setStatusCondition, type Condition, type NewCondition } from '../conditions.ts';
import { jsonEqual } from './json-equal.ts';
import { OwnWrites } from './own-writes.ts';

export interface StatusWriterOptions {
  /** Recorded in managedFields as the writer of `status`. Default: the server's choice (from the User-Agent). */
  fieldManager?: string;
  /**
   * Where the writes are recorded until the cache shows them; the manager passes the one its reader reads through, so
   * a reconcile reads the status it just wrote. Default: a record of this writer's own.
   */
  ownWrites?: OwnWrites;
}

export interface StatusWriteOptions {
  /**
   * Send the resourceVersion of `current`, the object the status was computed from, as a precondition: the API server
   * refuses the write with 409 Conflict when the object changed since — by anyone, this process included, for a status
   * computed from a version our own write replaced has not seen that write — and the reconcile runs again. For status
   * that is the operator's memory (a VM's UUID, a task in flight), where writing over a change not seen would lose what
   * the status alone remembers. Read `current` through `manager.reader`, which shows our own writes, and a reconcile
   * right after one does not conflict with it. Default false: the status is a report computed from the whole cache, so
   * the last write is the right one.
   */
  fenced?: boolean;
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
 * the last write is the right one; a change made meanwhile queues another reconcile that writes again. Status that is
 * the operator's memory rather than a report takes `{ fenced: true }` (see {@link StatusWriteOptions}).
 *
 * Each write is recorded in {@link OwnWrites} until the cache shows it (client-go's "expectations"): `current` is read
 * through that record, so a reconcile that runs in between — woken by an owned object's event that overtook the status
 * write's own — compares with and builds on the status it just sent, and sends nothing instead of writing it a second
 * time. The manager's writers share their record with `manager.reader`, which returns the written object itself.
 *
 * `writes` and `skipped` count what happened, for tests and benchmarks.
 */
export class StatusWriter {
  readonly #client: Pick<KubeClient, 'applyStatus'>;
  readonly #fieldManager: string;
  readonly #ownWrites: OwnWrites;
  #writes = 0;
  #skipped = 0;

  constructor(client: Pick<KubeClient, 'applyStatus'>, options: StatusWriterOptions = {}) {
    this.#client = client;
    this.#fieldManager = options.fieldManager ?? 'controller-core';
    this.#ownWrites = options.ownWrites ?? new OwnWrites();
  }

  /** Status writes sent to the API server, failed ones included. */
  get writes(): number {
    return this.#writes;
  }

  /** Writes not sent because the status was already as asked, or was just sent and the cache does not show it yet. */
  get skipped(): number {
    return this.#skipped;
  }

  /**
   * Sets the status of `current` to `status`. Returns the object the API server stored, or, when nothing was sent
   * because the status already is `status`, the newest version known: `current`, or the object this writer stored
   * when `current` is the version that write replaced. With `fenced`, a 409 Conflict rejects when the object changed
   * since `current`.
   */
  async write<T extends KubernetesObject & { status?: unknown }>(
    ref: ResourceRef<T>,
    current: T,
    status: NonNullable<T['status']>,
    options: StatusWriteOptions = {},
  ): Promise<T> {
    const latest = this.#latest(ref, current);
    if (jsonEqual(latest.status, status)) {
      this.#skipped++;
      return latest;
    }
    const { name, namespace, resourceVersion } = current.metadata ?? {};
    if (name === undefined || name === '') throw new Error(`StatusWriter: the ${ref.kind} has no metadata.name`);
    if (options.fenced === true && resourceVersion === undefined) throw new Error(`StatusWriter: a fenced write needs the ${ref.kind}'s resourceVersion`);
    this.#writes++;
    const metadata = {
      name,
      ...(namespace === undefined || namespace === '' ? {} : { namespace }),
      ...(options.fenced === true ? { resourceVersion } : {}),
    };
    const stored = await this.#client.applyStatus(ref, { metadata, status } as ApplyConfiguration<T>, { fieldManager: this.#fieldManager, force: true });
    this.#ownWrites.record(ref, latest, stored);
    return stored;
  }

  /** `current`, or what this process wrote over that version and the cache does not show yet. */
  #latest<T extends KubernetesObject>(ref: ResourceRef<T>, current: T): T {
    const name = current.metadata?.name;
    return name === undefined || name === '' ? current : (this.#ownWrites.latest(ref, current, current) ?? current);
  }

  /**
   * Computes the status with {@link nextStatus} and {@link write}s it if it differs from the current one. The base is
   * the status this writer just sent when the cache does not show it yet, so a condition set a moment ago keeps its
   * `lastTransitionTime` and the same update is not sent twice.
   */
  writeConditions<T extends KubernetesObject & { status?: ConditionedStatus }>(
    ref: ResourceRef<T>,
    current: T,
    update: StatusUpdate<NonNullable<T['status']>>,
    options: StatusWriteOptions = {},
  ): Promise<T> {
    const latest = this.#latest(ref, current);
    // Fenced on what the caller computed the update from: a version our own write replaced has not seen that write.
    return this.write(ref, options.fenced === true ? current : latest, nextStatus(latest.status, update), options);
  }
}
