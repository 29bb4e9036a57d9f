import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApplyConfiguration, KubeClient } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import { setStatusCondition, type Condition, type NewCondition } from '../conditions.ts';
import { jsonEqual } from './json-equal.ts';

export interface StatusWriterOptions {
  /** Recorded in managedFields as the writer of `status`. Default: the server's choice (from the User-Agent). */
  fieldManager?: string;
  /** Milliseconds since the epoch; for tests of how long a write is remembered. Default: Date.now. */
  clock?: () => number;
}

/**
 * How long a write is remembered while the cache does not show it. The cache normally catches up within milliseconds;
 * the bound only keeps the record of objects that are never reconciled again (deleted, say) from growing.
 */
export const PENDING_WRITE_TTL_MS = 10 * 60_000;

/** A status this writer sent, and the resourceVersion of the cached object it was computed from. */
interface PendingWrite {
  status: unknown;
  basedOn: string;
  at: number;
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
 * It also remembers each status it sent until the cache shows a newer version of the object (client-go's
 * "expectations"): a reconcile that runs in between — woken by an owned object's event that overtook the status
 * write's own — still holds the version the write was computed from, finds the same status to write, and sends
 * nothing instead of writing it a second time. Any other version in the cache (the write arrived, or someone else
 * changed the object) ends the record and the status is compared as usual.
 *
 * `writes` and `skipped` count what happened, for tests and benchmarks.
 */
export class StatusWriter {
  readonly #client: Pick<KubeClient, 'applyStatus'>;
  readonly #fieldManager: string;
  readonly #clock: () => number;
  /** By object UID, oldest first. */
  readonly #pending = new Map<string, PendingWrite>();
  #writes = 0;
  #skipped = 0;

  constructor(client: Pick<KubeClient, 'applyStatus'>, options: StatusWriterOptions = {}) {
    this.#client = client;
    this.#fieldManager = options.fieldManager ?? 'controller-core';
    this.#clock = options.clock ?? Date.now;
  }

  /** Status writes sent to the API server, failed ones included. */
  get writes(): number {
    return this.#writes;
  }

  /** Writes not sent because the status was already as asked, or was just sent and the cache does not show it yet. */
  get skipped(): number {
    return this.#skipped;
  }

  /** Status writes sent whose result the cache may not show yet (for tests: the record stays bounded). */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Sets the status of `current` to `status`. Returns the object the API server stored, or `current` itself when
   * nothing was sent: `status` equals its status (as JSON, whatever the key order), or this writer already sent
   * exactly `status` for this version of the object.
   */
  async write<T extends KubernetesObject & { status?: unknown }>(
    ref: ResourceRef<T>,
    current: T,
    status: NonNullable<T['status']>,
  ): Promise<T> {
    const { name, namespace, uid, resourceVersion } = current.metadata ?? {};
    const unconfirmed = this.#unconfirmedStatus(current);
    if (jsonEqual(current.status, status) || (unconfirmed !== undefined && jsonEqual(unconfirmed.status, status))) {
      this.#skipped++;
      return current;
    }
    if (name === undefined || name === '') throw new Error(`StatusWriter: the ${ref.kind} has no metadata.name`);
    this.#writes++;
    const metadata = namespace === undefined || namespace === '' ? { name } : { name, namespace };
    const stored = await this.#client.applyStatus(ref, { metadata, status } as ApplyConfiguration<T>, { fieldManager: this.#fieldManager, force: true });
    if (uid !== undefined && resourceVersion !== undefined) {
      // Deleted first so the entry moves to the end: the map stays ordered by time for #forgetExpired.
      this.#pending.delete(uid);
      this.#pending.set(uid, { status, basedOn: resourceVersion, at: this.#clock() });
    }
    return stored;
  }

  /**
   * The status this writer sent for the very version of `current` the cache holds, if the cache does not show it yet.
   * A record for any other version is dropped: the cache has moved on, so it is the truth again.
   */
  #unconfirmedStatus(current: KubernetesObject): { status: unknown } | undefined {
    this.#forgetExpired();
    const { uid, resourceVersion } = current.metadata ?? {};
    const pending = uid === undefined ? undefined : this.#pending.get(uid);
    if (pending === undefined || uid === undefined) return undefined;
    if (pending.basedOn === resourceVersion) return pending;
    this.#pending.delete(uid);
    return undefined;
  }

  #forgetExpired(): void {
    const cutoff = this.#clock() - PENDING_WRITE_TTL_MS;
    for (const [uid, { at }] of this.#pending) {
      if (at > cutoff) break;
      this.#pending.delete(uid);
    }
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
  ): Promise<T> {
    const base = (this.#unconfirmedStatus(current)?.status as T['status'] | undefined) ?? current.status;
    return this.write(ref, current, nextStatus(base, update));
  }
}
