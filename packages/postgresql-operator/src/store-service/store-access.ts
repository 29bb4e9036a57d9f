import type { StoreOperation, StoreRequest } from './store-protocol.ts';

/**
 * Who may do what in the backup store service. Callers are ServiceAccounts, authenticated by the API server
 * (token-reviewer.ts): the operator may do everything; a backup Job, which runs as its PostgreSQL's backup
 * ServiceAccount `<postgresql>-backup` in the database's namespace (desired-backup-job.ts), may only write, publish
 * and read back backups of that one PostgreSQL, discard what a failed backup of it stored, and sweep its unfinished
 * writes. A Job cannot list, delete a published backup (store-server.ts checks), or touch another database's backups,
 * even in its own namespace.
 */

export type StoreCaller =
  | { kind: 'operator'; username: string }
  | { kind: 'backup-job'; username: string; namespace: string; postgresql: string };

/** The suffix of a backup ServiceAccount's name (desired-backup-job.ts `backupServiceAccountName`). */
export const BACKUP_SERVICE_ACCOUNT_SUFFIX = '-backup';
const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;
const BACKUP_JOB_OPERATIONS: ReadonlySet<StoreOperation> = new Set(['write', 'finalize', 'manifest', 'read', 'digest', 'delete', 'sweep']);

/** The caller an authenticated user name is, or undefined for a user this service serves nothing. */
export function callerOf(username: string, operatorUsername: string): StoreCaller | undefined {
  if (username === operatorUsername) return { kind: 'operator', username };
  const match = SERVICE_ACCOUNT_USER.exec(username);
  const [, namespace, name] = match ?? [];
  if (namespace === undefined || !name?.endsWith(BACKUP_SERVICE_ACCOUNT_SUFFIX)) return undefined;
  const postgresql = name.slice(0, -BACKUP_SERVICE_ACCOUNT_SUFFIX.length);
  return postgresql === '' ? undefined : { kind: 'backup-job', username, namespace, postgresql };
}

/** Undefined when `caller` may make `request`; otherwise why not, for the 403 answer and the log. */
export function refusal(caller: StoreCaller, request: StoreRequest): string | undefined {
  if (caller.kind === 'operator') return undefined;
  if (!BACKUP_JOB_OPERATIONS.has(request.operation)) return `${caller.username} may not ${request.operation}: a backup Job only writes and reads back its own backup`;
  const target = 'key' in request ? request.key : request.scope;
  if (target?.namespace !== caller.namespace || target.postgresql !== caller.postgresql) {
    return `${caller.username} may only touch backups of PostgreSQL ${caller.postgresql} in namespace ${caller.namespace}`;
  }
  return undefined;
}
