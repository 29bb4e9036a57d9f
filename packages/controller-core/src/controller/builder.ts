import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ResourceRef } from '../client/resources.ts';
import type { InformerScope } from '../informer/reflector.ts';
import type { SharedInformer } from '../informer/shared-informer.ts';
import type { ControllerCoreMetrics } from '../metrics/create-metrics.ts';
import type { ItemExponentialBackoffOptions } from '../queue/item-backoff.ts';
import { objectKey } from '../objects/object-key.ts';
import { Controller } from './controller.ts';
import { LOW_PRIORITY } from '../queue/work-queue.ts';
import { admits, type Predicate } from './predicates.ts';
import type { Reconciler } from './reconciler.ts';

/** What a controller needs from its manager. */
export interface ControllerHost {
  /** The informer for `ref` in the host's scope (its namespace over `scope`'s). */
  informerFor<T extends KubernetesObject>(ref: ResourceRef<T>, scope?: InformerScope): SharedInformer<T>;
  metrics: ControllerCoreMetrics;
  logger: Logger;
  register(controller: Controller): void;
}

export interface WatchOptions<T extends KubernetesObject> {
  predicates?: Predicate<T>[];
  /** Narrow the informer further, e.g. to a label selector; shared with other watches of the same scope. */
  scope?: Omit<InformerScope, 'namespace'>;
}

export interface ControllerSettings {
  /** See ControllerOptions (default 1). */
  maxConcurrentReconciles?: number;
  /** See ControllerOptions (default none). */
  reconcileTimeoutMs?: number;
  /** The work queue's per-key back-off: see ControllerOptions (default 5 ms doubling to 1000 s). */
  backoff?: ItemExponentialBackoffOptions;
  /** Back-offs `{ requeue: true, backoff: name }` names, each counted per key on its own: see ControllerOptions (default none). */
  requeueBackoffs?: Readonly<Record<string, ItemExponentialBackoffOptions>>;
  /**
   * Default true: the initial list and resyncs are queued at LOW_PRIORITY, behind real changes. False queues every
   * event at priority 0, in arrival order, as controller-runtime's `UsePriorityQueue: false` does.
   */
  usePriorityQueue?: boolean;
}

/** Maps an event's object to the keys to reconcile. */
export type MapToKeys<T extends KubernetesObject> = (obj: T) => string[];

interface Source {
  ref: ResourceRef;
  map: MapToKeys<KubernetesObject>;
  options: WatchOptions<KubernetesObject>;
}

function groupOf(apiVersion: string | undefined): string {
  const slash = apiVersion?.indexOf('/') ?? -1;
  return slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
}

/**
 * controller-runtime's builder: `for` the kind the controller reconciles, `owns` kinds whose controller owner it is
 * (an event queues the owner), `watches` anything else with a mapping to keys, then `complete` with the reconciler.
 */
export class ControllerBuilder {
  readonly #host: ControllerHost;
  readonly #name: string;
  #for: ResourceRef | undefined;
  readonly #sources: Source[] = [];
  #settings: ControllerSettings = {};

  constructor(host: ControllerHost, name: string) {
    this.#host = host;
    this.#name = name;
  }

  for<T extends KubernetesObject>(ref: ResourceRef<T>, options: WatchOptions<T> = {}): this {
    if (this.#for) throw new Error(`controller ${this.#name}: for() was already called`);
    this.#for = ref;
    this.#sources.push({ ref, map: (obj) => [objectKey(obj)], options: options });
    return this;
  }

  /** Events of objects whose controller owner reference points at the `for` kind queue that owner. */
  owns<T extends KubernetesObject>(ref: ResourceRef<T>, options: WatchOptions<T> = {}): this {
    const map: MapToKeys<KubernetesObject> = (obj) => {
      const owner = this.#for;
      if (!owner) return [];
      const controllerRef = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
      if (controllerRef?.kind !== owner.kind || groupOf(controllerRef.apiVersion) !== owner.group) return [];
      const namespace = owner.namespaced ? obj.metadata?.namespace : undefined;
      return [namespace ? `${namespace}/${controllerRef.name}` : controllerRef.name];
    };
    this.#sources.push({ ref, map, options: options });
    return this;
  }

  watches<T extends KubernetesObject>(ref: ResourceRef<T>, map: MapToKeys<T>, options: WatchOptions<T> = {}): this {
    this.#sources.push({ ref, map: map as MapToKeys<KubernetesObject>, options: options });
    return this;
  }

  withOptions(settings: ControllerSettings): this {
    this.#settings = { ...this.#settings, ...settings };
    return this;
  }

  complete(reconciler: Reconciler): Controller {
    if (!this.#for) throw new Error(`controller ${this.#name}: call for() before complete()`);
    const { usePriorityQueue = true, ...settings } = this.#settings;
    const unchangedPriority = usePriorityQueue ? LOW_PRIORITY : 0;
    const controller = new Controller({
      name: this.#name, reconciler, metrics: this.#host.metrics, logger: this.#host.logger, ...settings,
    });
    for (const source of this.#sources) {
      const informer = this.#host.informerFor(source.ref, source.options.scope);
      const predicates = source.options.predicates ?? [];
      const enqueue = (obj: KubernetesObject, event: string, priority = 0): void => {
        const origin = { kind: source.ref.kind, name: obj.metadata?.name ?? '', ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}) };
        for (const key of source.map(obj)) controller.enqueue(key, { event, source: origin }, priority);
      };
      // The informer starts (and its cache warms) on every replica; its handler joins when the controller starts, and
      // is first handed every cached object as an add. Those adds, and resyncs (an update that is no change: the same
      // resourceVersion), are queued at low priority, behind what changed, as controller-runtime's handlers do
      // (handler.WithLowPriorityWhenUnchanged, pkg/handler/eventhandler.go).
      controller.watch(() => informer.addEventHandler({
        onAdd: (obj, { isInInitialList }) => { if (admits(predicates, 'create', obj)) enqueue(obj, 'Added', isInInitialList ? unchangedPriority : 0); },
        onUpdate: (oldObj, newObj) => {
          const unchanged = oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion;
          if (admits(predicates, 'update', newObj, oldObj)) enqueue(newObj, unchanged ? 'Resync' : 'Updated', unchanged ? unchangedPriority : 0);
        },
        onDelete: (obj) => { if (admits(predicates, 'delete', obj)) enqueue(obj, 'Deleted'); },
      }));
    }
    this.#host.register(controller);
    return controller;
  }
}
