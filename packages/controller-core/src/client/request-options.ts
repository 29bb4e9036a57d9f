export interface ListOptions {
  /** Only this namespace; default all namespaces (namespaced resources) or none (cluster-scoped). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Objects per page (the `limit` parameter); 0 lists in one request. Default 500, client-go's pager page size. */
  pageSize?: number;
  signal?: AbortSignal;
}

/** Every object of a list, from all pages, and the resourceVersion the list was read at (to watch from). */
export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
}

export interface WriteOptions {
  /** Recorded in managedFields as the owner of the fields written. Default: the server's (derived from User-Agent). */
  fieldManager?: string;
  /** Abandons the request (and any wait to retry it) when aborted; the write may still have been applied. */
  signal?: AbortSignal;
}

export interface GetOptions {
  /** Abandons the request (and any wait to retry it) when aborted. */
  signal?: AbortSignal;
}

export interface ApplyOptions {
  /** The field manager that owns what this apply sets; required by server-side apply. */
  fieldManager: string;
  /** Take over fields another manager owns instead of failing with a 409 conflict. Default false. */
  force?: boolean;
}

export interface DeleteOptions {
  /** Default: the resource's own (Background for most, Orphan for a few legacy kinds). */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Default: the object's own grace period. */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this UID / resourceVersion (409 Conflict otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** A patch and its kind: JSON merge patch (RFC 7386), strategic merge patch (built-in kinds only), JSON patch (RFC 6902). */
export type Patch =
  | { type: 'merge'; patch: object }
  | { type: 'strategic'; patch: object }
  | { type: 'json'; patch: JsonPatchOperation[] };

export const PATCH_CONTENT_TYPES = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
} as const;

/** What server-side apply takes: the fields this manager wants set, with apiVersion/kind (filled from the ref if absent). */
export type ApplyConfiguration<T> = DeepPartial<T> & { metadata: { name: string; namespace?: string } };
type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this version; default: the server's current state, sent first as ADDED events. */
  resourceVersion?: string;
  /** Ask for BOOKMARK events, which advance the resourceVersion on quiet resources. Default true. */
  allowWatchBookmarks?: boolean;
  /** The server ends the watch after this long. Default: the server's (its --min-request-timeout, randomized). */
  timeoutSeconds?: number;
  /** Aborting ends the event stream quietly. */
  signal?: AbortSignal;
}

export function selectorQuery(options: { labelSelector?: string; fieldSelector?: string }): URLSearchParams {
  const query = new URLSearchParams();
  if (options.labelSelector !== undefined && options.labelSelector !== '') query.set('labelSelector', options.labelSelector);
  if (options.fieldSelector !== undefined && options.fieldSelector !== '') query.set('fieldSelector', options.fieldSelector);
  return query;
}

export function writeQuery(options: WriteOptions): URLSearchParams | undefined {
  return options.fieldManager === undefined ? undefined : new URLSearchParams({ fieldManager: options.fieldManager });
}

export function watchQuery(options: WatchOptions): URLSearchParams {
  const query = selectorQuery(options);
  query.set('watch', 'true');
  if (options.resourceVersion !== undefined) query.set('resourceVersion', options.resourceVersion);
  if (options.allowWatchBookmarks ?? true) query.set('allowWatchBookmarks', 'true');
  if (options.timeoutSeconds !== undefined) query.set('timeoutSeconds', String(options.timeoutSeconds));
  return query;
}
