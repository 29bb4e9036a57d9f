import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import type { InformerScope } from './reflector.ts';
import { SharedInformer, type InformerHealth, type SharedInformerOptions } from './shared-informer.ts';

/** Options every informer of a factory shares; see {@link SharedInformerOptions} for each default. */
export type InformerFactoryOptions = Omit<SharedInformerOptions, keyof InformerScope>;

/**
 * Hands out one {@link SharedInformer} per resource and scope (namespace, label selector, field selector), so every
 * controller interested in, say, the ConfigMaps of one namespace shares one watch and one cache.
 */
export class SharedInformerFactory {
  readonly #client: Pick<KubeClient, 'list' | 'watch'>;
  readonly #options: InformerFactoryOptions;
  readonly #informers = new Map<string, SharedInformer<KubernetesObject>>();
  #state: 'new' | 'started' | 'stopped' = 'new';

  constructor(client: Pick<KubeClient, 'list' | 'watch'>, options: InformerFactoryOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  /** The informer for `ref` in `scope`, created on first request; started at once if the factory already was. */
  informerFor<T extends KubernetesObject>(ref: ResourceRef<T>, scope: InformerScope = {}): SharedInformer<T> {
    if (this.#state === 'stopped') throw new Error('the informer factory was stopped');
    const key = JSON.stringify([ref.group, ref.version, ref.resource, scope.namespace ?? '', scope.labelSelector ?? '', scope.fieldSelector ?? '']);
    let informer = this.#informers.get(key) as SharedInformer<T> | undefined;
    if (informer === undefined) {
      informer = new SharedInformer<T>(this.#client, ref, { ...this.#options, ...definedScope(scope) });
      this.#informers.set(key, informer as unknown as SharedInformer<KubernetesObject>);
      if (this.#state === 'started') informer.start();
    }
    return informer;
  }

  /** Every informer handed out so far. */
  informers(): SharedInformer<KubernetesObject>[] {
    return [...this.#informers.values()];
  }

  /** Starts every informer, and those requested later as they are created. */
  start(): void {
    if (this.#state === 'stopped') throw new Error('the informer factory was stopped');
    this.#state = 'started';
    for (const informer of this.#informers.values()) informer.start();
  }

  /**
   * Resolves when every informer has synced. Rejects after `timeoutMs` (default 2 min, controller-runtime's
   * CacheSyncTimeout) naming each informer that has not, with its last error.
   */
  async waitForSync(timeoutMs = 120_000): Promise<void> {
    const informers = this.informers();
    const results = await Promise.allSettled(informers.map((informer) => informer.waitForSync(timeoutMs)));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as Error).message] : []));
    if (failures.length > 0) throw new Error(`caches did not sync: ${failures.join('; ')}`);
  }

  /** Health of every informer (see {@link SharedInformer.health}). */
  health(staleAfterMs?: number): InformerHealth[] {
    return this.informers().map((informer) => informer.health(staleAfterMs));
  }

  /** Stops every informer; the factory hands out no more. */
  async stop(): Promise<void> {
    this.#state = 'stopped';
    await Promise.all(this.informers().map((informer) => informer.stop()));
  }
}

function definedScope(scope: InformerScope): InformerScope {
  const defined: InformerScope = {};
  if (scope.namespace !== undefined && scope.namespace !== '') defined.namespace = scope.namespace;
  if (scope.labelSelector !== undefined && scope.labelSelector !== '') defined.labelSelector = scope.labelSelector;
  if (scope.fieldSelector !== undefined && scope.fieldSelector !== '') defined.fieldSelector = scope.fieldSelector;
  return defined;
}
