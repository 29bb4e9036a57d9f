import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceRef } from '../client/resources.ts';
import { deepFreeze } from '../informer/deep-freeze.ts';
import { stripManagedFields } from '../informer/transform.ts';
import { objectKey, type ObjectKey } from '../objects/object-key.ts';

export interface OwnWritesOptions {
  /**
   * How long a write is remembered while the cache does not show it. Default 10 minutes: the cache normally catches up
   * within milliseconds, and every event of the object ends the record; the bound only matters while a watch is down.
   */
  ttlMs?: number;
  /** The most writes remembered at once; the oldest goes first. Default 10,000. */
  maxRecords?: number;
  /** Milliseconds since the epoch, for tests of the time bound. Default: Date.now. */
  clock?: () => number;
}

/** A stored object this process wrote, and the versions of it a cache may still show instead. */
interface OwnWrite {
  /** As the cache would hold it: without managedFields, frozen. */
  stored: KubernetesObject;
  /** The resourceVersion the write was based on, and those of our earlier writes it followed; oldest first. */
  replaced: string[];
  at: number;
}

/**
 * "Read your own writes" for a process that reads from informer caches: the objects it wrote whose write the caches do
 * not show yet (client-go's expectations, keyed by resourceVersion).
 *
 * A write records the object the API server stored with the resourceVersion the write was based on. While a cache
 * still holds that very version (or one of our earlier writes in the same chain), {@link latest} answers with the
 * stored object instead, so a reconcile that runs before the watch delivers the write — woken by an owned object's
 * event that overtook it — computes from what it wrote, not from what was there before: it neither sends the same
 * write again nor writes an older value back. Any other version in the cache (the write arrived, or someone else
 * changed the object), a deletion, or a different UID ends the record, and the cache is the truth again.
 *
 * resourceVersions are opaque: they are only compared for equality, never ordered. The records are memory of this
 * process only, and short-lived; what must survive a change of leader belongs in the object's status.
 */
export class OwnWrites {
  readonly #ttlMs: number;
  readonly #maxRecords: number;
  readonly #clock: () => number;
  /** By resource and object key, oldest first. */
  readonly #records = new Map<string, OwnWrite>();

  constructor(options: OwnWritesOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#maxRecords = options.maxRecords ?? 10_000;
    this.#clock = options.clock ?? Date.now;
  }

  /** Writes remembered whose result a cache may not show yet. */
  get size(): number {
    return this.#records.size;
  }

  /**
   * Records that this process changed `basedOn` into `stored` (the API server's answer to the write). A write that
   * changed nothing (same resourceVersion) records nothing.
   */
  record(ref: ResourceRef, basedOn: KubernetesObject, stored: KubernetesObject): void {
    const from = basedOn.metadata?.resourceVersion;
    const to = stored.metadata?.resourceVersion;
    if (from === undefined || to === undefined || from === to) return;
    const key = recordKey(ref, stored);
    const previous = this.#records.get(key);
    // Written on top of our own previous write (or a version it replaced): the cache may still show any of them.
    const chained = previous !== undefined && (previous.stored.metadata?.resourceVersion === from || previous.replaced.includes(from));
    const replaced = chained ? [...previous.replaced, previous.stored.metadata?.resourceVersion ?? ''] : [from];
    const copy = deepFreeze(stripManagedFields(structuredClone(stored)));
    // Deleted first so the entry moves to the end: the map stays ordered by time for #forgetOld.
    this.#records.delete(key);
    this.#records.set(key, { stored: copy, replaced: replaced.filter((version) => version !== to), at: this.#clock() });
    this.#forgetOld();
  }

  /**
   * The object a reader should see for `current`, a cache's (or a caller's) copy of the object at `key`: our stored
   * write when `current` is a version that write replaced, else `current` itself. `undefined` (the object is gone) and
   * any version other than ours end the record.
   */
  latest<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey | KubernetesObject, current: T | undefined): T | undefined {
    this.#forgetOld();
    if (this.#records.size === 0) return current;
    const id = recordKey(ref, key);
    const own = this.#records.get(id);
    if (own === undefined) return current;
    if (current === undefined || current.metadata?.uid !== own.stored.metadata?.uid) {
      this.#records.delete(id);
      return current;
    }
    const version = current.metadata?.resourceVersion;
    if (version !== undefined && own.replaced.includes(version)) return own.stored as T;
    // The stored version itself (a copy the caller got from our write): still ours; the cache may lag it.
    if (version !== own.stored.metadata?.resourceVersion) this.#records.delete(id);
    return current;
  }

  /**
   * A cache now holds `obj`, or with `deleted` no longer holds it: the record ends unless the cache holds a version our
   * write replaced. For informer event handlers, so records end when the write arrives even if nothing reads again.
   */
  observed(ref: ResourceRef, obj: KubernetesObject, deleted = false): void {
    if (this.#records.size === 0) return;
    const id = recordKey(ref, obj);
    const own = this.#records.get(id);
    if (own === undefined) return;
    const version = obj.metadata?.resourceVersion;
    if (deleted || obj.metadata?.uid !== own.stored.metadata?.uid || version === undefined || !own.replaced.includes(version)) {
      this.#records.delete(id);
    }
  }

  #forgetOld(): void {
    const cutoff = this.#clock() - this.#ttlMs;
    for (const [id, { at }] of this.#records) {
      if (at > cutoff && this.#records.size <= this.#maxRecords) break;
      this.#records.delete(id);
    }
  }
}

/** The resource with its version (the stored object has that version's shape) and the object key. */
function recordKey(ref: ResourceRef, obj: KubernetesObject | ObjectKey): string {
  return `${ref.resource}.${ref.group}/${ref.version} ${objectKey(obj)}`;
}
