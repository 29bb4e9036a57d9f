import type { KubernetesObject } from '@kubernetes/client-node';

/** The values an object is found under in one index; an empty list leaves it out of the index. */
export type IndexFunc<T extends KubernetesObject> = (obj: T) => string[];

/** Built-in index: the object's namespace ('' for cluster-scoped objects), as client-go's `MetaNamespaceIndexFunc`. */
export const NAMESPACE_INDEX = 'namespace';

/** Built-in index: the UID of the object's controller owner (the ownerReference with `controller: true`), if any. */
export const CONTROLLER_OWNER_INDEX = 'controllerOwnerUid';

export function namespaceIndexFunc(obj: KubernetesObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

export function controllerOwnerIndexFunc(obj: KubernetesObject): string[] {
  const controller = obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
  return controller === undefined ? [] : [controller.uid];
}

/**
 * The cache keys under one index value: the key itself while there is one, a Set from the second on. Most index values
 * have one object (an owner UID has its one owned ConfigMap), and a Set of one costs about 220 bytes of heap where the
 * key alone costs nothing: 2 MiB at 10,000 owned objects.
 */
type IndexEntry = string | Set<string>;

const NO_KEYS: readonly string[] = Object.freeze([]);

/** Index name → index value → cache keys, kept in step with the cache's contents. */
export class ObjectIndexes<T extends KubernetesObject> {
  readonly #funcs = new Map<string, IndexFunc<T>>();
  readonly #indexes = new Map<string, Map<string, IndexEntry>>();
  readonly #onIndexError: (index: string, key: string, error: unknown) => void;

  /** `onIndexError` hears of an index function that threw; the object is then left out of that index. */
  constructor(onIndexError: (index: string, key: string, error: unknown) => void) {
    this.#onIndexError = onIndexError;
  }

  has(name: string): boolean {
    return this.#funcs.has(name);
  }

  /** Adds an index and fills it from `current` (the cache's entries at that moment). */
  add(name: string, func: IndexFunc<T>, current: Iterable<[string, T]>): void {
    if (this.#funcs.has(name)) throw new Error(`index ${JSON.stringify(name)} already exists`);
    this.#funcs.set(name, func);
    this.#indexes.set(name, new Map());
    for (const [key, obj] of current) this.#insert(name, func, key, obj);
  }

  /** Moves `key` from where `previous` was indexed to where `next` belongs; either may be absent. */
  update(key: string, previous: T | undefined, next: T | undefined): void {
    for (const [name, func] of this.#funcs) {
      if (previous !== undefined) this.#remove(name, func, key, previous);
      if (next !== undefined) this.#insert(name, func, key, next);
    }
  }

  /** Cache keys under `value` in index `name`. Throws for an unknown index, which is a programming error. */
  keys(name: string, value: string): Iterable<string> {
    const index = this.#indexes.get(name);
    if (index === undefined) throw new Error(`no index named ${JSON.stringify(name)}; add it with addIndexer first`);
    const entry = index.get(value);
    if (entry === undefined) return NO_KEYS;
    return typeof entry === 'string' ? [entry] : entry;
  }

  #insert(name: string, func: IndexFunc<T>, key: string, obj: T): void {
    const index = this.#indexes.get(name);
    if (index === undefined) return;
    for (const value of this.#values(name, func, key, obj)) {
      const entry = index.get(value);
      if (entry === undefined || entry === key) index.set(value, key);
      else if (typeof entry === 'string') index.set(value, new Set([entry, key]));
      else entry.add(key);
    }
  }

  #remove(name: string, func: IndexFunc<T>, key: string, obj: T): void {
    const index = this.#indexes.get(name);
    if (index === undefined) return;
    for (const value of this.#values(name, func, key, obj)) {
      const entry = index.get(value);
      // Drop emptied values: an index over short-lived values (owner UIDs) would otherwise grow forever.
      if (entry === key) {
        index.delete(value);
      } else if (typeof entry === 'object') {
        entry.delete(key);
        // A Set is kept only while two or more keys share the value.
        if (entry.size === 1) for (const only of entry) index.set(value, only);
      }
    }
  }

  /** Index functions are user code: one that throws must not break the cache (or, through it, the watch). */
  #values(name: string, func: IndexFunc<T>, key: string, obj: T): string[] {
    try {
      return func(obj);
    } catch (error) {
      this.#onIndexError(name, key, error);
      return [];
    }
  }
}
