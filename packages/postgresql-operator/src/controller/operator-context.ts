import { readFile } from 'node:fs/promises';
import type { EventRecorder, Manager, StatusWriter } from '@k8s-operators/controller-core';
import { RemoteBackupStore } from '../store-service/remote-store.ts';
import { StoreEndpoints, type StoreServiceRef } from '../store-service/store-endpoint.ts';
import type { DiscoverOptions } from '../postgres/tools-version.ts';
import { BackupStores } from './backup-stores.ts';
import { DatabaseLocks } from './database-locks.ts';
import { addPostgreSQLIndexes } from './operator-indexes.ts';
import { registerPostgreSQLMetrics, type PostgreSQLMetrics } from '../metrics/postgresql-metrics.ts';

/** The field manager of everything the operator applies, status included. Stable across releases. */
export const FIELD_MANAGER = 'postgresql-operator';
export const REPORTING_CONTROLLER = 'exp.wheel.jp/postgresql-operator';

/** On a PostgreSQL: the final backup and, with `onDelete.backups: Delete`, the backups' deletion happen first. */
export const POSTGRESQL_FINALIZER = 'exp.wheel.jp/final-backup';
/** On a PostgreSQLBackup: its stored dump is deleted with it (unless its namespace is being deleted). */
export const BACKUP_FINALIZER = 'exp.wheel.jp/backup-data';

export interface OperatorOptions {
  /** The backup store service, which serves the backup volume (the default store, and the seed's). */
  storeService: StoreServiceRef;
  /** A ServiceAccount token for the backup store service's audience, projected into the operator's Pod. */
  storeTokenFile: string;
  /** The clock (tests). */
  now?: () => Date;
  /** Where pg_dump and pg_restore are looked for (default /usr/lib/postgresql/<major>/bin, then PATH). */
  tools?: DiscoverOptions;
  /** The image backup Jobs run: the operator's own. Undefined: backups fail, saying so. */
  backupImage?: string;
}

/** What both controllers share: the manager (caches, client), the store, the writers, the metrics and the per-database backup lock. */
export interface OperatorContext {
  manager: Manager;
  /** The store of each PostgreSQL and each backup: the backup volume or an S3 bucket. */
  stores: BackupStores;
  /** Where the backup store service answers, for backup Jobs to the volume. */
  storeEndpoints: StoreEndpoints;
  events: EventRecorder;
  statusWriter: StatusWriter;
  metrics: PostgreSQLMetrics;
  locks: DatabaseLocks;
  now: () => Date;
  tools: DiscoverOptions;
  backupImage: string | undefined;
}

export function operatorContext(manager: Manager, options: OperatorOptions): OperatorContext {
  addPostgreSQLIndexes(manager);
  const storeEndpoints = new StoreEndpoints(manager.client, options.storeService);
  // Read for each request: the kubelet rotates the projected token.
  const volume = new RemoteBackupStore({ endpoint: storeEndpoints, token: async () => (await readFile(options.storeTokenFile, 'utf8')).trim() });
  return {
    manager,
    stores: new BackupStores(manager.client, volume),
    storeEndpoints,
    events: manager.eventRecorderFor(REPORTING_CONTROLLER),
    statusWriter: manager.statusWriter(FIELD_MANAGER),
    metrics: registerPostgreSQLMetrics(manager.metrics.registry),
    locks: new DatabaseLocks(),
    now: options.now ?? ((): Date => new Date()),
    tools: options.tools ?? {},
    backupImage: options.backupImage,
  };
}
