import { isDeepStrictEqual } from 'node:util';
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
  /** The write created the object: a cache that holds nothing at its key has not seen it yet. */
  created: boolean;
  at: number;
}

/** A JSON merge patch (RFC 7386): objects merge field by field, `null` removes a field, anything else replaces it. */
export type MergePatch = Readonly<Record<string, unknown>>;

/** A merge patch this process sent to the object with `uid`, until a cache shows its values. */
interface OwnPatch {
  uid: string;
  patch: MergePatch;
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
  /** The same, for merge patches. */
  readonly #patches = new Map<string, OwnPatch>();

  constructor(options: OwnWritesOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#maxRecords = options.maxRecords ?? 10_000;
    this.#clock = options.clock ?? Date.now;
  }

  /** Writes remembered whose result a cache may not show yet. */
  get size(): number {
    return this.#records.size + this.#patches.size;
  }

  /**
   * Records that this process changed `basedOn` into `stored` (the API server's answer to the write), or with `basedOn`
   * undefined that it created `stored`: until a cache shows the object, reads of its key see `stored` rather than
   * nothing, as client-go's creation expectations hold a ReplicaSet controller back from creating the same Pod twice.
   * A write that changed nothing (same resourceVersion) records nothing.
   */
  record(ref: ResourceRef, basedOn: KubernetesObject | undefined, stored: KubernetesObject): void {
    const to = stored.metadata?.resourceVersion;
    if (basedOn === undefined) {
      if (to !== undefined) this.#remember(recordKey(ref, stored), stored, [], true);
      return;
    }
    const from = basedOn.metadata?.resourceVersion;
    if (from === undefined || to === undefined || from === to) return;
    const key = recordKey(ref, stored);
    const previous = this.#records.get(key);
    // Written on top of our own previous write (or a version it replaced): the cache may still show any of them.
    const chained = previous !== undefined && (previous.stored.metadata?.resourceVersion === from || previous.replaced.includes(from));
    const replaced = chained ? [...previous.replaced, previous.stored.metadata?.resourceVersion ?? ''] : [from];
    this.#remember(key, stored, replaced.filter((version) => version !== to), chained && previous.created);
  }

  #remember(key: string, stored: KubernetesObject, replaced: string[], created: boolean): void {
    const copy = deepFreeze(stripManagedFields(structuredClone(stored)));
    // Deleted first so the entry moves to the end: the map stays ordered by time for #forgetOld.
    this.#records.delete(key);
    this.#records.set(key, { stored: copy, replaced, created, at: this.#clock() });
    this.#forgetOld();
  }

  /**
   * The object a reader should see for `current`, a cache's (or a caller's) copy of the object at `key`: our stored
   * write when `current` is a version that write replaced, else `current` itself. `undefined` (the object is gone) and
   * any version other than ours end the record.
   */
  latest<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey | KubernetesObject, current: T | undefined): T | undefined {
    this.#forgetOld();
    if (this.size === 0) return current;
    const id = recordKey(ref, key);
    return this.#withPatch(id, this.#withWrite(id, current));
  }

  /**
   * Records that this process sent the merge patch `patch` to the object the API server answered with, `stored`. Until
   * a cache shows the patched values, reads see the cached version with the patch applied, whatever others wrote to
   * the object meanwhile (a kubelet updating a Pod's status, say, which would end a {@link record} of the write): a
   * watch delivers our version before any later one, so the first version that shows the values ends the record, and
   * what anyone changes after that is read as it is.
   */
  recordPatch(ref: ResourceRef, stored: KubernetesObject, patch: MergePatch): void {
    const uid = stored.metadata?.uid;
    if (uid === undefined) return;
    const id = recordKey(ref, stored);
    this.#patches.delete(id);
    this.#patches.set(id, { uid, patch: deepFreeze(structuredClone(patch)), at: this.#clock() });
    this.#forgetOld();
  }

  #withWrite<T extends KubernetesObject>(id: string, current: T | undefined): T | undefined {
    const own = this.#records.get(id);
    if (own === undefined) return current;
    // Created by us and not in the cache yet; once the cache has held it, its ADDED event has ended the record.
    if (current === undefined && own.created) return own.stored as T;
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

  #withPatch<T extends KubernetesObject>(id: string, current: T | undefined): T | undefined {
    const own = this.#patches.get(id);
    if (own === undefined) return current;
    if (current === undefined || current.metadata?.uid !== own.uid || showsPatch(current, own.patch)) {
      this.#patches.delete(id);
      return current;
    }
    return deepFreeze(applyMergePatch(current, own.patch) as T);
  }

  /**
   * A cache now holds `obj`, or with `deleted` no longer holds it: the record ends unless the cache holds a version our
   * write replaced. For informer event handlers, so records end when the write arrives even if nothing reads again.
   */
  observed(ref: ResourceRef, obj: KubernetesObject, deleted = false): void {
    if (this.size === 0) return;
    const id = recordKey(ref, obj);
    const own = this.#records.get(id);
    const version = obj.metadata?.resourceVersion;
    if (own !== undefined && (deleted || obj.metadata?.uid !== own.stored.metadata?.uid || version === undefined || !own.replaced.includes(version))) {
      this.#records.delete(id);
    }
    const patch = this.#patches.get(id);
    if (patch !== undefined && (deleted || obj.metadata?.uid !== patch.uid || showsPatch(obj, patch.patch))) this.#patches.delete(id);
  }

  #forgetOld(): void {
    const cutoff = this.#clock() - this.#ttlMs;
    for (const records of [this.#records, this.#patches]) {
      for (const [id, { at }] of records) {
        if (at > cutoff && records.size <= this.#maxRecords) break;
        records.delete(id);
      }
    }
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `target` already has every value `patch` sets (and none it removes): applying it would change nothing. */
function showsPatch(target: unknown, patch: unknown): boolean {
  if (!isPlainObject(patch)) return isDeepStrictEqual(target, patch);
  const fields = isPlainObject(target) ? target : {};
  return Object.entries(patch).every(([field, value]) => (value === null ? fields[field] === undefined : showsPatch(fields[field], value)));
}

/** RFC 7386: `target` with `patch` merged in, as the API server applies a merge patch; `target` is not changed. */
function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result = new Map(Object.entries(isPlainObject(target) ? target : {}));
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) result.delete(field);
    else result.set(field, applyMergePatch(result.get(field), value));
  }
  return Object.fromEntries(result);
}

/** The resource with its version (the stored object has that version's shape) and the object key. */
function recordKey(ref: ResourceRef, obj: KubernetesObject | ObjectKey): string {
  return `${ref.resource}.${ref.group}/${ref.version} ${objectKey(obj)}`;
}
