import {
  AGE_COLUMN,
  defineCustomResource,
  type CustomResource,
  type CustomResourceSpec,
  type CustomResourceStatus,
} from '@k8s-operators/controller-core';
import { PostgreSQLBackupSpecSchema, PostgreSQLBackupStatusSchema } from './postgresql-backup-schema.ts';
import { API_GROUP, API_VERSION, POSTGRESQL_BACKUP_KIND } from './postgresql-refs.ts';

/**
 * `exp.wheel.jp/v1` `PostgreSQLBackup`: one object per backup, created by the schedule or by a user for an on-demand
 * backup (`spec.postgresql: <name>`).
 */
export const PostgreSQLBackupResource = defineCustomResource({
  group: API_GROUP,
  ...POSTGRESQL_BACKUP_KIND,
  shortNames: ['pgbackup'],
  categories: ['k8s-operators', 'postgres'],
  scope: 'Namespaced',
  description:
    'PostgreSQLBackup is one logical backup (pg_dump, custom format) of a PostgreSQL database: stored with its SHA-256, ' +
    'decoded in full by pg_restore and checked in the store (read back, or confirmed by a bucket\'s checksums) before it counts as complete.',
  versions: [
    {
      name: API_VERSION,
      spec: PostgreSQLBackupSpecSchema,
      status: PostgreSQLBackupStatusSchema,
      printerColumns: [
        { name: 'PostgreSQL', type: 'string', jsonPath: '.spec.postgresql', description: 'The PostgreSQL backed up' },
        { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Pending, Running, Completed or Failed' },
        { name: 'Size', type: 'integer', jsonPath: '.status.sizeBytes', description: 'Size of the dump in bytes' },
        { name: 'Verified', type: 'boolean', jsonPath: '.status.verified', description: 'Read back in full' },
        { name: 'Completed', type: 'date', jsonPath: '.status.completionTime', description: 'When it finished' },
        { name: 'Trigger', type: 'string', jsonPath: '.spec.trigger', priority: 1 },
        { name: 'Reason', type: 'string', jsonPath: '.status.reason', priority: 1 },
        { name: 'Error', type: 'string', jsonPath: '.status.error', priority: 1 },
        AGE_COLUMN,
      ],
    },
  ],
});

export type PostgreSQLBackup = CustomResource<typeof PostgreSQLBackupResource>;
export type PostgreSQLBackupSpec = CustomResourceSpec<typeof PostgreSQLBackupResource>;
export type PostgreSQLBackupStatus = CustomResourceStatus<typeof PostgreSQLBackupResource>;
