import {
  AGE_COLUMN,
  READY_COLUMN,
  REASON_COLUMN,
  defineCustomResource,
  type CustomResource,
  type CustomResourceSpec,
  type CustomResourceStatus,
} from '@k8s-operators/controller-core';
import { PostgreSQLSpecSchema } from './postgresql-spec.ts';
import { API_GROUP, API_VERSION, POSTGRESQL_KIND } from './postgresql-refs.ts';
import { PostgreSQLStatusSchema } from './postgresql-status.ts';

/** `exp.wheel.jp/v1` `PostgreSQL` (short name `pg`): the seed's group, version, kind and short name. */
export const PostgreSQLResource = defineCustomResource({
  group: API_GROUP,
  ...POSTGRESQL_KIND,
  shortNames: ['pg'],
  categories: ['k8s-operators', 'postgres'],
  scope: 'Namespaced',
  description:
    'PostgreSQL runs one PostgreSQL database with scheduled, verified logical backups (pg_dump), and restores the ' +
    'latest verified backup into a new pod before its Service sends traffic to it.',
  versions: [
    {
      name: API_VERSION,
      spec: PostgreSQLSpecSchema,
      status: PostgreSQLStatusSchema,
      printerColumns: [
        { name: 'DB', type: 'string', jsonPath: '.spec.db', description: 'The database' },
        READY_COLUMN,
        REASON_COLUMN,
        {
          name: 'Last Backup',
          type: 'date',
          jsonPath: '.status.lastSuccessfulBackupTime',
          description: 'Age of the newest verified backup',
        },
        {
          name: 'Next Backup',
          // A time, not a `date` column: kubectl shows a date in the future as "<invalid>".
          type: 'string',
          jsonPath: '.status.nextScheduledBackupTime',
          description: 'When the next scheduled backup is due (UTC)',
          priority: 1,
        },
        AGE_COLUMN,
      ],
    },
  ],
});

export type PostgreSQL = CustomResource<typeof PostgreSQLResource>;
export type PostgreSQLSpec = CustomResourceSpec<typeof PostgreSQLResource>;
export type PostgreSQLStatus = CustomResourceStatus<typeof PostgreSQLResource>;
