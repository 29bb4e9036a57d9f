import type { KubernetesObject } from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import type { KubeClient } from '../client/kube-client.ts';
import { groupResourceOf, type ResourceRef } from '../client/resources.ts';
import { objectKey } from '../objects/object-key.ts';
import { ObjectCache, type ReadonlyCache } from './cache.ts';
import { deepFreeze } from './deep-freeze.ts';
import type { IndexFunc } from './indexer.ts';
import { Reflector, type InformerScope, type WatchEndReason } from './reflector.ts';
import { poolRepeatedStrings, StringPool } from './string-pool.ts';
import { stripManagedFields, type ObjectTransform } from './transform.ts';

/**
 * Notifications about cache changes. They are synchronous and not awaited: a handler should only record what happened
 * (a controller's handlers enqueue a key). An exception thrown by a handler is logged and the informer carries on.
 * Objects are the deep-frozen cached ones.
 */
export interface InformerEventHandler<T extends KubernetesObject> {
  /** `isInInitialList`: the object came with the informer's first list, or is replayed to a handler added later. */
  onAdd?(obj: T, context: { isInInitialList: boolean }): void;
  /**
   * The object changed (`oldObj` is the previously cached version), or, with periodic resync on, `oldObj === newObj`.
   * An object that a relist finds unchanged is not reported.
   */
  onUpdate?(oldObj: T, newObj: T): void;
  /**
   * The object is gone. `obj` is its final state from the watch, or, with `deletedFinalStateUnknown`, the last state
   * the cache knew: the deletion happened while no watch was open and was found by a relist (client-go's
   * `DeletedFinalStateUnknown`).
   */
  onDelete?(obj: T, context: { deletedFinalStateUnknown: boolean }): void;
}

/**
 * Where an informer reports for metrics; controller-core's metrics module provides `informer_watch_restarts_total`,
 * `informer_relists_total` and `informer_last_event_age_seconds`. `resource` is the GroupResource (`deployments.apps`).
 */
export interface InformerMetricsSink {
  onWatchRestart(resource: string, reason: WatchEndReason): void;
  onRelist(resource: string): void;
  /** Called at start with a reader of the last sign of life (epoch ms); the returned function is called at stop. */
  reportLastEvent(resource: string, lastEventAt: () => number): () => void;
}

export type InformerLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

export interface SharedInformerOptions extends InformerScope {
  /**
   * Applied to every object before it is frozen and cached. Default {@link stripManagedFields}; pass
   * `(obj) => obj` to keep objects whole.
   */
  transform?: ObjectTransform;
  /**
   * Replay the whole cache as updates with `oldObj === newObj` this often (±10 %), as controller-runtime's SyncPeriod
   * does, so level-triggered controllers revisit every object. It reads no data from the server. Default 0: off — our
   * watches do not silently miss events, and controllers that need a periodic check requeue with `requeueAfter`.
   */
  resyncPeriodMs?: number;
  /**
   * Restart a watch that delivered no event and no bookmark for this long. The API server sends a bookmark about once a
   * minute on a quiet watch, so a watch silent for 3 min is dead (a half-open connection no timeout catches).
   * Default 180 000 (3 min); kopf uses 70 s, client-node and controller-runtime have no watchdog.
   */
  inactivityTimeoutMs?: number;
  /** Objects per list page. Default 500, as client-go. */
  pageSize?: number;
  metrics?: InformerMetricsSink;
  /** Default: a pino logger on standard output at level info. */
  logger?: InformerLogger;
}

/** An informer's own view of its health, for readiness checks (see {@link SharedInformer.health}). */
export interface InformerHealth {
  /** What the informer watches, e.g. `configmaps in namespace a with labels app=x`. */
  informer: string;
  status: 'ok' | 'stale' | 'not-synced';
  synced: boolean;
  /** Seconds since the last event, bookmark, completed list or opened watch; undefined before any. */
  lastEventAgeSeconds: number | undefined;
  /** Failed lists and watches since the last success. */
  consecutiveFailures: number;
  lastError: string | undefined;
}

interface SyncWaiter { resolve: () => void; reject: (error: Error) => void }

/**
 * One list-watch, one cache, many handlers: client-go's SharedIndexInformer. Cached objects are deep-frozen (reads
 * need no copy and cannot corrupt the cache); update handlers receive the old and the new object; relists (after 410
 * Gone) report only real differences. Create informers through a {@link SharedInformerFactory} so that each
 * resource and scope is watched once.
 */
export class SharedInformer<T extends KubernetesObject> {
  readonly ref: ResourceRef<T>;
  readonly scope: Readonly<InformerScope>;
  /** The GroupResource (`configmaps`, `deployments.apps`), the `resource` label of informer metrics. */
  readonly resource: string;
  /** The resource and scope in words, for messages. */
  readonly description: string;
  readonly #cache: ObjectCache<T>;
  readonly #handlers = new Set<InformerEventHandler<T>>();
  readonly #reflector: Reflector<T>;
  readonly #transform: ObjectTransform;
  /** One copy of the strings the cached objects share (apiVersion, condition reasons...). */
  readonly #strings = new StringPool();
  readonly #resyncPeriodMs: number;
  readonly #inactivityTimeoutMs: number;
  readonly #metrics: InformerMetricsSink | undefined;
  readonly #logger: InformerLogger;
  readonly #watchRestarts: Record<WatchEndReason, number> = { timeout: 0, gone: 0, error: 0, inactivity: 0 };
  #syncWaiters: SyncWaiter[] = [];
  #state: 'new' | 'running' | 'stopped' = 'new';
  #synced = false;
  #relists = 0;
  #startedAt: number | undefined;
  #lastEventAt: number | undefined;
  #lastSyncedAt: number | undefined;
  #consecutiveFailures = 0;
  #lastError: string | undefined;
  #resyncTimer: NodeJS.Timeout | undefined;
  #stopReportingLastEvent: (() => void) | undefined;

  constructor(client: Pick<KubeClient, 'list' | 'watch'>, ref: ResourceRef<T>, options: SharedInformerOptions = {}) {
    const { transform, resyncPeriodMs, inactivityTimeoutMs, pageSize, metrics, logger, ...scope } = options;
    this.ref = ref;
    this.scope = Object.freeze({ ...scope });
    this.resource = groupResourceOf(ref);
    this.description = describe(this.resource, scope);
    this.#transform = transform ?? stripManagedFields;
    this.#resyncPeriodMs = resyncPeriodMs ?? 0;
    this.#inactivityTimeoutMs = inactivityTimeoutMs ?? 180_000;
    this.#metrics = metrics;
    this.#logger = logger ?? pino({ name: 'informer' });
    this.#cache = new ObjectCache<T>((index, key, error) => {
      this.#logger.error({ err: error, informer: this.description, index, key }, 'index function threw; object left out of that index');
    });
    this.#reflector = new Reflector<T>({
      client,
      ref,
      scope,
      target: {
        replace: (items, initial) => {
          this.#replace(items, initial);
        },
        apply: (type, obj) => {
          this.#apply(type, obj);
        },
      },
      inactivityTimeoutMs: this.#inactivityTimeoutMs,
      pageSize: pageSize ?? 500,
      observer: {
        listed: (initial) => {
          this.#markAlive();
          this.#lastSyncedAt = Date.now();
          if (!initial) {
            this.#relists++;
            this.#report(() => this.#metrics?.onRelist(this.resource));
            this.#logger.info({ informer: this.description, objects: this.#cache.size }, 'relisted');
          }
        },
        listFailed: (error) => {
          this.#noteFailure(error);
          this.#logger.warn({ err: error, informer: this.description }, 'list failed; retrying with backoff');
        },
        alive: () => {
          this.#markAlive();
        },
        watchEnded: (reason, error) => {
          this.#watchRestarts[reason]++;
          this.#report(() => this.#metrics?.onWatchRestart(this.resource, reason));
          if (error !== undefined) this.#noteFailure(error);
          const fields = { informer: this.description, reason, ...(error === undefined ? {} : { err: error }) };
          if (reason === 'timeout') this.#logger.debug(fields, 'watch ended; rewatching');
          else this.#logger.warn(fields, reason === 'gone' ? 'watch expired (410); relisting' : 'watch restarted');
        },
      },
    });
  }

  /** The informer's cache; objects in it are deep-frozen. */
  get cache(): ReadonlyCache<T> {
    return this.#cache;
  }

  /** True once the first list is in the cache (and stays true). */
  get synced(): boolean {
    return this.#synced;
  }

  /** Epoch ms of the last event, bookmark, completed list or opened watch. */
  get lastEventAt(): number | undefined {
    return this.#lastEventAt;
  }

  /** Epoch ms at which the last list (the first or a relist) was applied. */
  get lastSyncedAt(): number | undefined {
    return this.#lastSyncedAt;
  }

  /** Watches reopened so far, by why the previous one ended. */
  get watchRestarts(): Readonly<Record<WatchEndReason, number>> {
    return { ...this.#watchRestarts };
  }

  /** Lists after the first one (each after a 410 Gone). */
  get relists(): number {
    return this.#relists;
  }

  /**
   * Adds a handler. If the informer already holds objects, the handler first receives each as an add with
   * `isInInitialList`, so it never misses what arrived before it. Returns a function that removes the handler.
   */
  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.#handlers.add(handler);
    for (const obj of this.#cache.list()) this.#call('onAdd', () => handler.onAdd?.(obj, { isInInitialList: true }));
    return () => {
      this.#handlers.delete(handler);
    };
  }

  /** Adds a custom index (for `cache.byIndex(name, value)`), filled from what is cached already. */
  addIndexer(name: string, func: IndexFunc<T>): void {
    this.#cache.addIndexer(name, func);
  }

  /** Starts listing and watching; returns at once (see {@link waitForSync}). A stopped informer cannot be restarted. */
  start(): void {
    if (this.#state === 'stopped') throw new Error(`informer for ${this.description} was stopped; create a new one`);
    if (this.#state === 'running') return;
    this.#state = 'running';
    this.#startedAt = Date.now();
    this.#stopReportingLastEvent = this.#metrics?.reportLastEvent(this.resource, () => this.#lastEventAt ?? this.#startedAt ?? Date.now());
    this.#reflector.start();
    if (this.#resyncPeriodMs > 0) this.#scheduleResync();
  }

  /** Stops watching and resync; the cache keeps its last contents. Pending `waitForSync` calls reject. */
  async stop(): Promise<void> {
    if (this.#state === 'stopped') return;
    this.#state = 'stopped';
    clearTimeout(this.#resyncTimer);
    this.#stopReportingLastEvent?.();
    await this.#reflector.stop();
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const waiter of waiters) waiter.reject(new Error(`informer for ${this.description} was stopped before it synced`));
  }

  /** Resolves once the first list is cached; rejects after `timeoutMs` (default 2 min, controller-runtime's) or on stop. */
  waitForSync(timeoutMs = 120_000): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (this.#state === 'stopped') return Promise.reject(new Error(`informer for ${this.description} was stopped before it synced`));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#syncWaiters = this.#syncWaiters.filter((entry) => entry !== waiter);
        const why = this.#lastError === undefined ? '' : ` (last error: ${this.#lastError})`;
        reject(new Error(`informer for ${this.description} did not sync within ${timeoutMs} ms${why}`));
      }, timeoutMs);
      const waiter: SyncWaiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#syncWaiters.push(waiter);
    });
  }

  /**
   * `stale` when the informer has synced but heard nothing from the server — no event, bookmark, list or newly opened
   * watch — for `staleAfterMs` (default twice the inactivity timeout: a healthy watch hears a bookmark every minute and
   * a silent one is restarted by the watchdog well before). `not-synced` before the first list.
   */
  health(staleAfterMs = 2 * this.#inactivityTimeoutMs): InformerHealth {
    const age = this.#lastEventAt === undefined ? undefined : (Date.now() - this.#lastEventAt) / 1000;
    const status = !this.#synced ? 'not-synced' : age !== undefined && age * 1000 > staleAfterMs ? 'stale' : 'ok';
    return {
      informer: this.description,
      status,
      synced: this.#synced,
      lastEventAgeSeconds: age,
      consecutiveFailures: this.#consecutiveFailures,
      lastError: this.#lastError,
    };
  }

  /** A complete list from the reflector. Reports only differences from what is cached. */
  #replace(items: T[], initial: boolean): void {
    const listed = new Set<string>();
    for (const raw of items) {
      const obj = this.#prepare(raw);
      const key = objectKey(obj);
      listed.add(key);
      const cached = this.#cache.get(key);
      if (cached === undefined) {
        this.#cache.set(key, obj);
        this.#notifyAdd(obj, initial);
      } else if (cached.metadata?.uid !== obj.metadata?.uid) {
        this.#replaceIncarnation(key, cached, obj);
      } else if (cached.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
        this.#cache.set(key, obj);
        this.#notifyUpdate(cached, obj);
      }
      // Same resourceVersion: the same object; the cached copy stays and nothing is reported.
    }
    for (const key of this.#cache.keys()) {
      if (listed.has(key)) continue;
      const gone = this.#cache.delete(key);
      if (gone !== undefined) this.#notifyDelete(gone, true);
    }
    if (!this.#synced) this.#markSynced();
  }

  /** One watch event from the reflector. */
  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: T): void {
    const obj = this.#prepare(raw);
    const key = objectKey(obj);
    if (type === 'DELETED') {
      this.#cache.delete(key);
      this.#notifyDelete(obj, false);
      return;
    }
    const cached = this.#cache.get(key);
    if (cached === undefined) {
      this.#cache.set(key, obj);
      this.#notifyAdd(obj, false);
    } else if (cached.metadata?.uid !== obj.metadata?.uid) {
      this.#replaceIncarnation(key, cached, obj);
    } else {
      this.#cache.set(key, obj);
      this.#notifyUpdate(cached, obj);
    }
  }

  /** Same name, new UID: the object was deleted and created again while we were not looking. */
  #replaceIncarnation(key: string, cached: T, obj: T): void {
    this.#cache.set(key, obj);
    this.#notifyDelete(cached, true);
    this.#notifyAdd(obj, false);
  }

  /**
   * Transformed, its repeated strings shared, and frozen. A transform that throws is logged and skipped for that object,
   * never blocking the watch.
   */
  #prepare(raw: T): T {
    let prepared = raw;
    try {
      prepared = this.#transform(raw);
    } catch (error) {
      this.#logger.error({ err: error, informer: this.description, name: raw.metadata?.name }, 'transform threw; caching the object as received');
    }
    return deepFreeze(poolRepeatedStrings(prepared, this.#strings));
  }

  /** Metrics sinks are outside code too: one that throws must not stop the reflector. */
  #report(observe: () => void): void {
    try {
      observe();
    } catch (error) {
      this.#logger.error({ err: error, informer: this.description }, 'informer metrics sink threw');
    }
  }

  #markSynced(): void {
    this.#synced = true;
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const waiter of waiters) waiter.resolve();
  }

  #markAlive(): void {
    this.#lastEventAt = Date.now();
    this.#consecutiveFailures = 0;
    this.#lastError = undefined;
  }

  #noteFailure(error: unknown): void {
    this.#consecutiveFailures++;
    this.#lastError = error instanceof Error ? error.message : String(error);
  }

  #scheduleResync(): void {
    this.#resyncTimer = setTimeout(
      () => {
        if (this.#synced) for (const obj of this.#cache.list()) this.#notifyUpdate(obj, obj);
        this.#scheduleResync();
      },
      this.#resyncPeriodMs * (1 + 0.1 * (Math.random() * 2 - 1)),
    );
  }

  #notifyAdd(obj: T, isInInitialList: boolean): void {
    for (const handler of this.#handlers) this.#call('onAdd', () => handler.onAdd?.(obj, { isInInitialList }));
  }

  #notifyUpdate(oldObj: T, newObj: T): void {
    for (const handler of this.#handlers) this.#call('onUpdate', () => handler.onUpdate?.(oldObj, newObj));
  }

  #notifyDelete(obj: T, deletedFinalStateUnknown: boolean): void {
    for (const handler of this.#handlers) this.#call('onDelete', () => handler.onDelete?.(obj, { deletedFinalStateUnknown }));
  }

  #call(which: string, notify: () => void): void {
    try {
      notify();
    } catch (error) {
      this.#logger.error({ err: error, informer: this.description, handler: which }, 'event handler threw; the informer carries on');
    }
  }
}

function describe(resource: string, scope: InformerScope): string {
  const parts = [resource];
  if (scope.namespace !== undefined && scope.namespace !== '') parts.push(`in namespace ${scope.namespace}`);
  if (scope.labelSelector !== undefined && scope.labelSelector !== '') parts.push(`with labels ${scope.labelSelector}`);
  if (scope.fieldSelector !== undefined && scope.fieldSelector !== '') parts.push(`with fields ${scope.fieldSelector}`);
  return parts.join(' ');
}
