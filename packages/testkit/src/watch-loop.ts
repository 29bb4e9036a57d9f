import { KubeApiError, type KubeApi, type WatchEvent } from './kube-api.ts';

interface Listed<T> {
  metadata: { resourceVersion: string };
  items: T[];
}

export interface ListWatchHandlers<T> {
  /** Called with the full list after every (re)list; the handler reconciles its view with it. */
  onList: (items: T[]) => void;
  onEvent: (event: WatchEvent<T>) => void;
}

/**
 * List, then watch from the list's resourceVersion; on a clean end watch again from the last version seen;
 * on 410 Gone or any error, relist after a short pause. Runs until the signal aborts.
 */
export async function runListWatch<T extends { metadata?: { resourceVersion?: string } }>(
  api: KubeApi, path: string, handlers: ListWatchHandlers<T>, signal: AbortSignal,
): Promise<void> {
  // A function, not the property: the flag changes while we await, which control-flow narrowing cannot see.
  const stopped = (): boolean => signal.aborted;
  while (!stopped()) {
    try {
      const list = await api.get<Listed<T>>(path);
      if (!list) throw new Error(`${path} is not served`);
      handlers.onList(list.items);
      let resourceVersion = list.metadata.resourceVersion;
      for (;;) {
        const stream: { expired: boolean } = { expired: false };
        await api.watch<T>(path, resourceVersion, (event) => {
          if (event.type === 'ERROR') {
            stream.expired = true;
            return;
          }
          const rv = event.object.metadata?.resourceVersion;
          if (rv) resourceVersion = rv;
          if (event.type !== 'BOOKMARK') handlers.onEvent(event);
        }, signal);
        if (stream.expired || stopped()) break;
      }
    } catch (error) {
      if (stopped()) return;
      if (!(error instanceof KubeApiError && error.status === 410)) {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}
