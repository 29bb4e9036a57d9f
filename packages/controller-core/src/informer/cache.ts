import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey, type ObjectKey } from '../objects/object-key.ts';
import {
  CONTROLLER_OWNER_INDEX,
  controllerOwnerIndexFunc,
  NAMESPACE_INDEX,
  namespaceIndexFunc,
  ObjectIndexes,
  type IndexFunc,
} from './indexer.ts';

/**
 * What readers of an informer's cache may do. Every object returned is deep-frozen and shared: copy it
 * (`structuredClone`) before changing it.
 */
export interface ReadonlyCache<T extends KubernetesObject> {
  /** By `namespace/name` key (`name` for cluster-scoped objects) or by `{ namespace, name }`. */
  get(key: string | ObjectKey): T | undefined;
  /** Every object, or those in one namespace. */
  list(namespace?: string): T[];
  /** Objects whose index function returned `value` for index `indexName`. */
  byIndex(indexName: string, value: string): T[];
  keys(): string[];
  readonly size: number;
}

/**
 * The informer's store: objects by key, plus indexes, with namespace and controller-owner UID built in. Only the
 * informer writes to it.
 */
export class ObjectCache<T extends KubernetesObject> implements ReadonlyCache<T> {
  readonly #items = new Map<string, T>();
  readonly #indexes: ObjectIndexes<T>;

  constructor(onIndexError: (index: string, key: string, error: unknown) => void) {
    this.#indexes = new ObjectIndexes(onIndexError);
    this.#indexes.add(NAMESPACE_INDEX, namespaceIndexFunc, []);
    this.#indexes.add(CONTROLLER_OWNER_INDEX, controllerOwnerIndexFunc, []);
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string | ObjectKey): T | undefined {
    return this.#items.get(typeof key === 'string' ? key : objectKey(key));
  }

  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.#items.values()];
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  byIndex(indexName: string, value: string): T[] {
    const objects: T[] = [];
    for (const key of this.#indexes.keys(indexName, value)) {
      const obj = this.#items.get(key);
      if (obj !== undefined) objects.push(obj);
    }
    return objects;
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  entries(): IterableIterator<[string, T]> {
    return this.#items.entries();
  }

  /** Adds an index, filled from the objects already cached. Index names are unique. */
  addIndexer(name: string, func: IndexFunc<T>): void {
    this.#indexes.add(name, func, this.#items.entries());
  }

  /** Stores `obj` under `key`; returns what was there. */
  set(key: string, obj: T): T | undefined {
    const previous = this.#items.get(key);
    this.#items.set(key, obj);
    this.#indexes.update(key, previous, obj);
    return previous;
  }

  /** Removes `key`; returns what was there. */
  delete(key: string): T | undefined {
    const previous = this.#items.get(key);
    if (previous === undefined) return undefined;
    this.#items.delete(key);
    this.#indexes.update(key, previous, undefined);
    return previous;
  }
}
