import { checkBackupKey, checkScope, type BackupKey, type BackupScope } from '../stores/store.ts';

/**
 * The backup store service's HTTP API, shared by its server (store-server.ts) and its client (remote-store.ts). One
 * route per BackupStore method, keyed by Kubernetes names, so every request names the namespace and PostgreSQL it
 * touches and the server can decide from the path alone whether the caller may make it:
 *
 *   PUT    /v1/backups/<ns>/<pg>/<backup>/data       write (the body is the dump, streamed)
 *   PUT    /v1/backups/<ns>/<pg>/<backup>/manifest   finalize (the body is the manifest)
 *   GET    /v1/backups/<ns>/<pg>/<backup>/manifest   manifest (404: not a complete backup)
 *   GET    /v1/backups/<ns>/<pg>/<backup>/data       read
 *   GET    /v1/backups/<ns>/<pg>/<backup>/digest     digest
 *   GET    /v1/backups/<ns>/<pg>/<backup>/checksum   verifyChecksum
 *   DELETE /v1/backups/<ns>/<pg>/<backup>            delete
 *   GET    /v1/backups[/<ns>[/<pg>]]                 list
 *   POST   /v1/incomplete/<ns>[/<pg>]/sweep          removeIncomplete
 */

export type StoreOperation = 'write' | 'finalize' | 'manifest' | 'read' | 'digest' | 'verify' | 'delete' | 'list' | 'sweep';

export type StoreRequest =
  | { operation: Exclude<StoreOperation, 'list' | 'sweep'>; key: BackupKey }
  | { operation: 'list'; scope?: BackupScope }
  | { operation: 'sweep'; scope: BackupScope };

const PREFIX = '/v1';
const KEY_ROUTES: Record<string, Partial<Record<string, StoreOperation>>> = {
  PUT: { data: 'write', manifest: 'finalize' },
  GET: { manifest: 'manifest', data: 'read', digest: 'digest', checksum: 'verify' },
};

const segment = (value: string): string => encodeURIComponent(value);

/** The method and path of `request`. */
export function routeOf(request: StoreRequest): { method: string; path: string } {
  switch (request.operation) {
    case 'list': {
      const { scope } = request;
      const parts = scope === undefined ? [] : [scope.namespace, ...(scope.postgresql === undefined ? [] : [scope.postgresql])];
      return { method: 'GET', path: [`${PREFIX}/backups`, ...parts.map(segment)].join('/') };
    }
    case 'sweep': {
      const { scope } = request;
      const parts = [scope.namespace, ...(scope.postgresql === undefined ? [] : [scope.postgresql])];
      return { method: 'POST', path: [`${PREFIX}/incomplete`, ...parts.map(segment), 'sweep'].join('/') };
    }
    case 'delete':
      return { method: 'DELETE', path: keyPath(request.key) };
    default: {
      const { operation } = request;
      const method = operation === 'write' || operation === 'finalize' ? 'PUT' : 'GET';
      const [suffix] = Object.entries(KEY_ROUTES[method] ?? {}).find(([, op]) => op === operation) ?? [];
      return { method, path: `${keyPath(request.key)}/${suffix ?? ''}` };
    }
  }
}

function keyPath(key: BackupKey): string {
  return `${PREFIX}/backups/${segment(key.namespace)}/${segment(key.postgresql)}/${segment(key.backup)}`;
}

export class StoreRouteError extends Error {
  override name = 'StoreRouteError';
}

/**
 * The request a method and path make, or undefined for a path that is no route. Names are checked as Kubernetes names
 * (store.ts), so no request reaches outside its namespace's directory: a bad one throws {@link StoreRouteError}.
 */
export function parseRoute(method: string, pathname: string): StoreRequest | undefined {
  if (!pathname.startsWith(`${PREFIX}/`)) return undefined;
  let parts: string[];
  try {
    parts = pathname.slice(PREFIX.length + 1).split('/').map(decodeURIComponent);
  } catch {
    throw new StoreRouteError(`the path ${pathname} is not valid URL encoding`);
  }
  const [collection, ...rest] = parts;
  try {
    if (collection === 'backups') {
      if (method === 'GET' && rest.length <= 2) {
        const [namespace, postgresql] = rest;
        if (namespace === undefined) return { operation: 'list' };
        const scope = { namespace, ...(postgresql === undefined ? {} : { postgresql }) };
        checkScope(scope);
        return { operation: 'list', scope };
      }
      const [namespace = '', postgresql = '', backup = '', suffix, ...extra] = rest;
      if (rest.length < 3 || extra.length > 0) return undefined;
      const key = { namespace, postgresql, backup };
      if (suffix === undefined) {
        if (method !== 'DELETE') return undefined;
        checkBackupKey(key);
        return { operation: 'delete', key };
      }
      const operation = KEY_ROUTES[method]?.[suffix];
      if (operation === undefined || operation === 'list' || operation === 'sweep') return undefined;
      checkBackupKey(key);
      return { operation, key };
    }
    if (collection === 'incomplete' && method === 'POST' && rest.at(-1) === 'sweep' && (rest.length === 2 || rest.length === 3)) {
      const [namespace = '', postgresql] = rest.slice(0, -1);
      const scope = { namespace, ...(postgresql === undefined ? {} : { postgresql }) };
      checkScope(scope);
      return { operation: 'sweep', scope };
    }
  } catch (error) {
    throw new StoreRouteError((error as Error).message);
  }
  return undefined;
}

/** The JSON body of every refusal: what went wrong, for the caller's condition or log. */
export interface StoreErrorBody {
  error: string;
}

/** The audience callers' tokens are projected for: a token for the API server is no token here, and the reverse. */
export const BACKUP_STORE_AUDIENCE = 'postgresql-backup-store';
/** Where the service listens by default. */
export const BACKUP_STORE_PORT = 8443;
/**
 * How long the service keeps an idle connection open: longer than its clients keep one in their pools (Node's global
 * agent: 5 s), so that it is always the client that closes it. At Node's server default, also 5 s, the service would
 * close a connection just as a client reuses it, and that request would fail with ECONNRESET; an upload cannot be
 * sent again.
 */
export const IDLE_CONNECTION_MS = 65_000;
