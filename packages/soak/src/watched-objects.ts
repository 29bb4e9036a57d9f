// A live view of the objects at one API path (list, then watch, relisting after any break), for samplers that look
// every 100 ms without asking the API server each time.
import { runListWatch, type KubeApi } from '@k8s-operators/testkit';

export interface KubeObject { metadata: { name: string; namespace?: string; uid: string; resourceVersion?: string; labels?: Record<string, string>; deletionTimestamp?: string; generation?: number } }

export interface WatchedObjects<T extends KubeObject> {
  /** The objects as last seen, by namespace/name. */
  readonly items: ReadonlyMap<string, T>;
  /** Resolves once the first list arrived. */
  readonly synced: Promise<void>;
}

export function watchObjects<T extends KubeObject>(api: KubeApi, path: string, signal: AbortSignal, onChange?: (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T) => void): WatchedObjects<T> {
  const items = new Map<string, T>();
  const key = (o: T): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => { markSynced = resolve; });
  void runListWatch<T>(api, path, {
    onList: (list) => {
      items.clear();
      for (const o of list) {
        items.set(key(o), o);
        onChange?.('ADDED', o);
      }
      markSynced();
    },
    onEvent: (event) => {
      if (event.type === 'DELETED') items.delete(key(event.object));
      else items.set(key(event.object), event.object);
      if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') onChange?.(event.type, event.object);
    },
  }, signal);
  return { items, synced };
}
