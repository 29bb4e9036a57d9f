import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceRef } from '../client/resources.ts';
import type { InformerScope } from '../informer/reflector.ts';
import type { SharedInformer } from '../informer/shared-informer.ts';
import { matchesLabels } from '../objects/labels.ts';
import type { ObjectKey } from '../objects/object-key.ts';
import type { OwnWrites } from '../writes/own-writes.ts';

export interface CacheReadOptions {
  /**
   * Which of the manager's informers for the resource to read: the one narrowed to this label or field selector, as a
   * controller's watch `scope`, so a reconciler reads the very cache its events came from. Default: the informer of
   * the whole resource (in the manager's namespace).
   */
  scope?: Omit<InformerScope, 'namespace'>;
}

export interface CacheListOptions extends CacheReadOptions {
  /** Only this namespace's objects. Default: every namespace the cache holds. */
  namespace?: string;
  /** Only objects with all these labels and values, as controller-runtime's `client.MatchingLabels`. Default: any. */
  matchingLabels?: Readonly<Record<string, string>>;
  /**
   * Only objects an index put under `value`, e.g. `{ name: CONTROLLER_OWNER_INDEX, value: owner.metadata.uid }`, as
   * controller-runtime's `client.MatchingFields`; add custom indexes with `manager.informerFor(ref).addIndexer`.
   * Default: any.
   */
  index?: { name: string; value: string };
}

/** What a reader needs of the manager whose caches it reads. */
export interface CacheReaderSource {
  /** The manager's informer for `ref`: the manager's namespace always applies. */
  informerFor<T extends KubernetesObject>(ref: ResourceRef<T>, scope?: InformerScope): SharedInformer<T>;
  /** The only namespace the informers hold, or undefined for all. */
  namespace: string | undefined;
  /** Whether the manager has started its informers. */
  started(): boolean;
  /** How long a read waits for a cache it opened to sync. */
  syncTimeoutMs: number;
  /** The manager's writes its caches may not show yet (its status writers record there); reads return them. */
  ownWrites: OwnWrites;
}

/**
 * Reads objects from the manager's informers, as controller-runtime's `mgr.GetClient()` reads: no request to the API
 * server, and objects deep-frozen and shared (copy them before changing). A read of a resource no controller watches
 * opens its informer, in the manager's namespace only, and waits for its first list; later reads are served from
 * memory at once. Reads outside the manager's namespace throw, since the cache cannot hold what was never watched.
 *
 * Reads see the manager's own writes: when the cache still holds the version of an object that one of the manager's
 * status writers changed, a read returns the object the API server stored for that write instead (see
 * {@link OwnWrites}), so a reconcile that runs before the watch delivers the write does not compute from the status
 * it just replaced. Once the cache shows any other version, it is read as it is. A merge patch sent with
 * `manager.mergePatch` is read applied to the cached version until the cache shows its values.
 */
export class CacheReader {
  readonly #source: CacheReaderSource;

  constructor(source: CacheReaderSource) {
    this.#source = source;
  }

  /** The cached object at `key`, or undefined when the cache holds none. */
  async get<T extends KubernetesObject>(ref: ResourceRef<T>, key: ObjectKey, options: CacheReadOptions = {}): Promise<T | undefined> {
    if (ref.namespaced && (key.namespace === undefined || key.namespace === '')) {
      throw new Error(`manager.reader.get: ${ref.kind} ${JSON.stringify(key.name)} is namespaced; give its namespace`);
    }
    if (ref.namespaced) this.#checkNamespace(ref, key.namespace, 'get');
    const informer = await this.#syncedInformer(ref, options.scope);
    const at = ref.namespaced ? key : { name: key.name };
    return this.#source.ownWrites.latest(ref, at, informer.cache.get(at));
  }

  /** The cached objects that match every option given. */
  async list<T extends KubernetesObject>(ref: ResourceRef<T>, options: CacheListOptions = {}): Promise<T[]> {
    const { namespace, matchingLabels, index, scope } = options;
    const inNamespace = ref.namespaced && namespace !== undefined && namespace !== '' ? namespace : undefined;
    if (inNamespace !== undefined) this.#checkNamespace(ref, inNamespace, 'list');
    const { cache } = await this.#syncedInformer(ref, scope);
    let objects = index === undefined ? cache.list(inNamespace) : cache.byIndex(index.name, index.value);
    if (index !== undefined && inNamespace !== undefined) objects = objects.filter((obj) => obj.metadata?.namespace === inNamespace);
    const { ownWrites } = this.#source;
    // Our own writes first, so a label we just patched counts; an index still finds the cached versions (an operator
    // does not patch the fields it indexes by).
    if (ownWrites.size > 0) objects = objects.map((obj) => ownWrites.latest(ref, obj, obj) ?? obj);
    return matchingLabels === undefined ? objects : objects.filter((obj) => matchesLabels(obj, matchingLabels));
  }

  async #syncedInformer<T extends KubernetesObject>(ref: ResourceRef<T>, scope: CacheReadOptions['scope']): Promise<SharedInformer<T>> {
    if (!this.#source.started()) {
      throw new Error(`manager.reader: the caches start with manager.start(); read ${ref.kind} objects from a reconciler, not while setting up`);
    }
    const informer = this.#source.informerFor(ref, scope);
    await informer.waitForSync(this.#source.syncTimeoutMs);
    return informer;
  }

  #checkNamespace(ref: ResourceRef, namespace: string | undefined, verb: 'get' | 'list'): void {
    const only = this.#source.namespace;
    if (only === undefined || only === '' || namespace === only) return;
    throw new Error(
      `manager.reader.${verb}: ${ref.kind} in namespace ${JSON.stringify(namespace)} is outside the manager's caches, which hold ` +
        `namespace ${JSON.stringify(only)} only (the manager's namespace option, --namespace); read it with manager.client instead`,
    );
  }
}
