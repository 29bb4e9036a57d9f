import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiError, isGone } from '../client/errors.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { groupResourceOf, type ResourceRef } from '../client/resources.ts';
import { ReconnectBackoff } from './backoff.ts';

/** Which objects an informer sees: a namespace (default all) and label/field selectors (default none). */
export interface InformerScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * Why a watch ended, the `reason` of `informer_watch_restarts_total`: `timeout` the server closed it as asked
 * (`timeoutSeconds`), `gone` its resourceVersion was compacted (410) and a relist follows, `error` it failed or could
 * not be opened, `inactivity` the watchdog cut it after hearing nothing for too long.
 */
export type WatchEndReason = 'timeout' | 'gone' | 'error' | 'inactivity';

/** Where the reflector puts what it reads; the shared informer turns it into cache changes and notifications. */
export interface ReflectorTarget<T extends KubernetesObject> {
  /** The full, consistent state from a list; `initial` for the informer's first list. */
  replace(items: T[], initial: boolean): void;
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
}

/** What the reflector reports for health and metrics. */
export interface ReflectorObserver {
  listed(initial: boolean): void;
  listFailed(error: unknown): void;
  /** A watch was opened, or it delivered an event or bookmark: the server is talking to us. */
  alive(): void;
  /** A watch (or an attempt to open one) ended; another follows unless the reflector is stopping. */
  watchEnded(reason: WatchEndReason, error: unknown): void;
}

export interface ReflectorOptions<T extends KubernetesObject> {
  client: Pick<KubeClient, 'list' | 'watch'>;
  ref: ResourceRef<T>;
  scope: InformerScope;
  target: ReflectorTarget<T>;
  observer: ReflectorObserver;
  /** Restart a watch that delivered nothing (not even a bookmark) for this long. */
  inactivityTimeoutMs: number;
  /** Objects per list page. */
  pageSize: number;
  backoff?: ReconnectBackoff;
}

/** A watch that ends cleanly sooner than this, having delivered nothing, counts as failed (so it backs off). */
const SHORTEST_HEALTHY_WATCH_MS = 1_000;

/**
 * client-go's reflector: list (paginated, consistent), then watch from the list's resourceVersion with bookmarks and a
 * server-side timeout drawn from [5, 10] min, resuming from the last resourceVersion seen. A 410 Gone relists; any other
 * failure re-watches (or re-lists) after a backoff. It never stops on its own — only `stop()` ends it — and a watchdog
 * restarts watches that went silent, the failure that makes other Node informers "healthy but dead".
 */
export class Reflector<T extends KubernetesObject> {
  readonly #options: ReflectorOptions<T>;
  readonly #backoff: ReconnectBackoff;
  /** The last resourceVersion seen (list, event or bookmark); undefined before the first list and after a 410. */
  #resourceVersion: string | undefined;
  #abort: AbortController | undefined;
  #running: Promise<void> | undefined;

  constructor(options: ReflectorOptions<T>) {
    this.#options = options;
    this.#backoff = options.backoff ?? new ReconnectBackoff();
  }

  start(): void {
    if (this.#running !== undefined) return;
    this.#abort = new AbortController();
    this.#running = this.#run(this.#abort.signal);
  }

  async stop(): Promise<void> {
    this.#abort?.abort();
    await this.#running;
  }

  async #run(stopping: AbortSignal): Promise<void> {
    // A function, not `stopping.aborted` inline: TypeScript would keep the loop condition's narrowing across awaits.
    const stopped = (): boolean => stopping.aborted;
    let listed = false;
    while (!stopped()) {
      let phase: 'list' | 'watch' = 'list';
      try {
        if (this.#resourceVersion === undefined) {
          await this.#list(stopping, !listed);
          listed = true;
        }
        phase = 'watch';
        const reason = await this.#watch(stopping);
        if (stopped()) return;
        this.#options.observer.watchEnded(reason, undefined);
        // A watch that ended as asked, or was cut for silence, is reopened at once; failures back off below.
        continue;
      } catch (error) {
        if (stopped()) return;
        if (phase === 'list') {
          this.#options.observer.listFailed(error);
        } else {
          const gone = isGone(error);
          // The resourceVersion we would resume from is compacted: only a fresh list can tell what changed since.
          if (gone) this.#resourceVersion = undefined;
          this.#options.observer.watchEnded(gone ? 'gone' : 'error', error);
        }
      }
      try {
        await sleep(this.#backoff.nextDelayMs(), undefined, { signal: stopping });
      } catch {
        return; // stopped while waiting
      }
    }
  }

  async #list(stopping: AbortSignal, initial: boolean): Promise<void> {
    const { client, ref, scope, pageSize } = this.#options;
    // No resourceVersion: a consistent (quorum) read, so a relist after 410 cannot go back in time.
    const list = await client.list(ref, { ...scope, pageSize, signal: stopping });
    if (stopping.aborted) return;
    this.#options.target.replace(list.items, initial);
    this.#resourceVersion = list.resourceVersion;
    this.#options.observer.listed(initial);
  }

  /** One watch, until it ends; returns why, or throws what broke it. */
  async #watch(stopping: AbortSignal): Promise<WatchEndReason> {
    const { client, ref, scope, target, observer, inactivityTimeoutMs } = this.#options;
    // One controller cuts this watch, for a stop or for silence; a per-watch listener on `stopping` is removed after.
    const cut = new AbortController();
    const silence = { detected: false };
    const timer = setTimeout(() => {
      silence.detected = true;
      cut.abort();
    }, inactivityTimeoutMs);
    const onStop = (): void => {
      cut.abort();
    };
    stopping.addEventListener('abort', onStop, { once: true });
    const openedAt = Date.now();
    let delivered = 0;
    try {
      const events = await client.watch(ref, {
        ...scope,
        resourceVersion: this.#resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 300 + Math.floor(Math.random() * 301),
        signal: cut.signal,
      });
      observer.alive();
      timer.refresh();
      for await (const event of events) {
        timer.refresh();
        observer.alive();
        delivered++;
        if (event.type === 'ERROR') {
          throw new ApiError({ status: event.object.code ?? 500, body: event.object, request: `WATCH ${groupResourceOf(ref)}` });
        }
        if (event.type !== 'BOOKMARK') target.apply(event.type, event.object);
        const resourceVersion = event.object.metadata?.resourceVersion;
        if (resourceVersion !== undefined && resourceVersion !== '') this.#resourceVersion = resourceVersion;
      }
    } catch (error) {
      if (silence.detected) return 'inactivity';
      throw error;
    } finally {
      clearTimeout(timer);
      stopping.removeEventListener('abort', onStop);
    }
    if (silence.detected) return 'inactivity';
    if (!stopping.aborted && delivered === 0 && Date.now() - openedAt < SHORTEST_HEALTHY_WATCH_MS) {
      throw new Error(`the API server closed the watch on ${groupResourceOf(ref)} at once`);
    }
    return 'timeout';
  }
}
