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

/** Index name → index value → cache keys, kept in step with the cache's contents. */
export class ObjectIndexes<T extends KubernetesObject> {
  readonly #funcs = new Map<string, IndexFunc<T>>();
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
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
  keys(name: string, value: string): ReadonlySet<string> {
    const index = this.#indexes.get(name);
    if (index === undefined) throw new Error(`no index named ${JSON.stringify(name)}; add it with addIndexer first`);
    return index.get(value) ?? new Set();
  }

  #insert(name: string, func: IndexFunc<T>, key: string, obj: T): void {
    const index = this.#indexes.get(name);
    if (index === undefined) return;
    for (const value of this.#values(name, func, key, obj)) {
      let keys = index.get(value);
      if (keys === undefined) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #remove(name: string, func: IndexFunc<T>, key: string, obj: T): void {
    const index = this.#indexes.get(name);
    if (index === undefined) return;
    for (const value of this.#values(name, func, key, obj)) {
      const keys = index.get(value);
      keys?.delete(key);
      // Drop empty sets: an index over short-lived values (owner UIDs) would otherwise grow forever.
      if (keys?.size === 0) index.delete(value);
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
