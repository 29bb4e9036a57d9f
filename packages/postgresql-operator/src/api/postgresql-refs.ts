import { defineResource } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from './postgresql-backup-resource.ts';
import type { PostgreSQL } from './postgresql-resource.ts';

/**
 * Where the operator's kinds live in the API, for the client, informers and controllers. Declared apart from the
 * TypeBox schemas (postgresql-resource.ts, postgresql-backup-resource.ts), which take their names from here: the
 * operator's runtime imports no schema code, so it never loads TypeBox (which took 9-10 MiB of its RSS). A test checks that these
 * refs equal the ones derived from the CRD declarations.
 */

/** The API group and version of the seed, shared by both kinds. */
export const API_GROUP = 'exp.wheel.jp';
export const API_VERSION = 'v1';

export const POSTGRESQL_KIND = { kind: 'PostgreSQL', plural: 'postgresqls', singular: 'postgresql' } as const;
export const POSTGRESQL_BACKUP_KIND = {
  kind: 'PostgreSQLBackup',
  plural: 'postgresqlbackups',
  singular: 'postgresqlbackup',
} as const;

export const PostgreSQLRef = defineResource<PostgreSQL>({
  group: API_GROUP,
  version: API_VERSION,
  resource: POSTGRESQL_KIND.plural,
  kind: POSTGRESQL_KIND.kind,
  namespaced: true,
});

export const PostgreSQLBackupRef = defineResource<PostgreSQLBackup>({
  group: API_GROUP,
  version: API_VERSION,
  resource: POSTGRESQL_BACKUP_KIND.plural,
  kind: POSTGRESQL_BACKUP_KIND.kind,
  namespaced: true,
});

/** The CRDs' names (plural.group): the finalizers ask whether these are being deleted (the operator being uninstalled). */
export const POSTGRESQL_CRD = `${POSTGRESQL_KIND.plural}.${API_GROUP}`;
export const POSTGRESQL_BACKUP_CRD = `${POSTGRESQL_BACKUP_KIND.plural}.${API_GROUP}`;
