import { Type } from 'typebox';
import {
  DEFAULT_BACKUPS_ON_DELETE,
  DEFAULT_BACKUP_JOB_RESOURCES,
  DEFAULT_BACKUP_JOB_TTL_SECONDS,
  DEFAULT_BACKUP_SCHEDULE,
  DEFAULT_FINAL_BACKUP,
  DEFAULT_IMAGE,
  DEFAULT_KEEP_FAILED,
  DEFAULT_KEEP_LAST,
  MAX_KEEP_FAILED,
  MAX_KEEP_LAST,
} from './defaults.ts';
import { S3StoreSpecSchema } from './backup-s3-spec.ts';
import { BackupEncryptionSpecSchema } from './backup-encryption-spec.ts';
import { BACKUP_VERIFY_DESCRIPTION, RESTORE_CHECK_RESOURCES_DESCRIPTION, RestoreCheckScheduleSchema, RestoreCheckSpecSchema } from './backup-verify-spec.ts';
import { PASSWORD_SECRET_KEY } from './password-secret.ts';
import { CRON_SHAPE, DNS_1123_SUBDOMAIN, POSTGRES_IDENTIFIER, QUANTITY, RETENTION_AGE } from './formats.ts';

/**
 * `PostgreSQL.spec`. The seed's fields (`db`, `user`, `password`) keep their names and meaning so the article's
 * manifest applies unchanged; everything added since is optional, with defaults that keep the seed's behaviour
 * (ephemeral data, a backup every few minutes, restore before traffic).
 *
 * Bad input is refused by the API server with a message that says what to fix: CEL rules (`x-kubernetes-validations`)
 * rather than bare `pattern`s, whose messages only repeat the regular expression.
 */

/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1). */
const MAX_IDENTIFIER_LENGTH = 63;

function identifierRules(field: string, example: string) {
  return [
    {
      rule: `self.matches('${POSTGRES_IDENTIFIER}')`,
      message:
        `${field} must be a lowercase PostgreSQL identifier: a letter or '_', then letters, digits or '_' ` +
        `(e.g. ${example})`,
    },
    {
      // The database and its owner are created once, from the first spec; a new name would not rename them.
      rule: 'self == oldSelf',
      message: `${field} cannot be changed once the database exists; create a new PostgreSQL instead`,
    },
  ];
}

const Quantity = Type.Union([Type.Integer(), Type.String()], { pattern: QUANTITY });

const ResourceRequirements = Type.Object(
  {
    requests: Type.Optional(
      Type.Record(Type.String(), Quantity, { description: 'Minimum resources, e.g. {cpu: 100m, memory: 256Mi}.' }),
    ),
    limits: Type.Optional(
      Type.Record(Type.String(), Quantity, { description: 'Maximum resources, e.g. {memory: 1Gi}.' }),
    ),
  },
  { description: 'CPU and memory of the PostgreSQL container, as in a Pod. Default: none (best effort).' },
);

const StorageSpec = Type.Object(
  {
    size: Type.String({
      description: 'Requested size of the data volume, e.g. 10Gi.',
      maxLength: 64,
      'x-kubernetes-validations': [
        { rule: `self.matches('${QUANTITY}')`, message: 'storage.size must be a quantity such as 1Gi or 500Mi' },
      ],
    }),
    storageClassName: Type.Optional(
      Type.String({
        description: "StorageClass of the claim. Default: the cluster's default StorageClass.",
        maxLength: 253,
      }),
    ),
  },
  {
    description:
      'Keep the data on a PersistentVolumeClaim. Without it the data lives in the pod (an emptyDir, as the original operator kept it) and ' +
      'a new pod starts empty and is restored from the latest verified backup before it receives traffic.',
  },
);

const RetentionSpec = Type.Object(
  {
    keepLast: Type.Optional(
      Type.Integer({
        description:
          'Number of verified scheduled backups to keep. The newest verified backup is never deleted, whatever the limits.',
        format: 'int32',
        minimum: 1,
        maximum: MAX_KEEP_LAST,
        default: DEFAULT_KEEP_LAST,
      }),
    ),
    maxAge: Type.Optional(
      Type.String({
        description:
          'Delete scheduled backups older than this: a number of minutes, hours, days or weeks (90m, 36h, 7d, 2w). ' +
          'Applies together with keepLast (a backup must satisfy both to stay). Default: no age limit.',
        maxLength: 8,
        'x-kubernetes-validations': [
          {
            rule: `self.matches('${RETENTION_AGE}')`,
            message: 'retention.maxAge must be a whole number followed by m, h, d or w, e.g. 7d',
          },
        ],
      }),
    ),
    keepFailed: Type.Optional(
      Type.Integer({
        description:
          'Number of failed scheduled backups kept (newest first) so their error can be read; older ones are deleted.',
        format: 'int32',
        minimum: 0,
        maximum: MAX_KEEP_FAILED,
        default: DEFAULT_KEEP_FAILED,
      }),
    ),
  },
  {
    description:
      'Which scheduled backups are kept. On-demand and final backups (spec.trigger OnDemand or Final) are never ' +
      'deleted by retention; delete their PostgreSQLBackup to delete them.',
    default: {},
  },
);

const OnDeleteSpec = Type.Object(
  {
    finalBackup: Type.Optional(
      Type.Boolean({
        description: 'Take a last backup before the database is deleted with its PostgreSQL.',
        default: DEFAULT_FINAL_BACKUP,
      }),
    ),
    backups: Type.Optional(
      Type.Union(
        [Type.Literal('Retain'), Type.Literal('Delete')],
        {
          description:
            'Retain keeps the stored backups when the PostgreSQL is deleted, so a PostgreSQL created again with the ' +
            'same name and namespace restores them; Delete deletes them.',
          default: DEFAULT_BACKUPS_ON_DELETE,
        },
      ),
    ),
  },
  { description: 'What happens to the data when the PostgreSQL is deleted.', default: {} },
);

const BackupJobSpec = Type.Object(
  {
    resources: Type.Optional(
      Type.Object(ResourceRequirements.properties, {
        description:
          'CPU and memory of the backup container (pg_dump, the decode check and the upload). Default: requests ' +
          `{cpu: ${DEFAULT_BACKUP_JOB_RESOURCES.requests.cpu}, memory: ${DEFAULT_BACKUP_JOB_RESOURCES.requests.memory}}, ` +
          `limits {memory: ${DEFAULT_BACKUP_JOB_RESOURCES.limits.memory}}; no CPU limit, which would only slow the backup.`,
      }),
    ),
    ttlSecondsAfterFinished: Type.Optional(
      Type.Integer({
        description:
          'How long a failed backup\'s Job and Pod stay, so `kubectl logs job/<name>` shows what happened. A Job whose ' +
          'backup completed is deleted once the operator has recorded it.',
        minimum: 0,
        maximum: 2_592_000,
        default: DEFAULT_BACKUP_JOB_TTL_SECONDS,
      }),
    ),
  },
  {
    description:
      'The Job each backup runs as: the operator\'s image, restricted Pod Security, a ServiceAccount of its own ' +
      '(<name>-backup) with no permissions and no API token.',
    default: {},
  },
);

const BackupVerifySpec = Type.Object(
  {
    schedule: Type.Optional(RestoreCheckScheduleSchema),
    check: Type.Optional(RestoreCheckSpecSchema),
    resources: Type.Optional(Type.Object(ResourceRequirements.properties, { description: RESTORE_CHECK_RESOURCES_DESCRIPTION })),
  },
  { description: BACKUP_VERIFY_DESCRIPTION },
);

const BackupSpec = Type.Object(
  {
    schedule: Type.Optional(
      Type.String({
        description:
          'When to back up, as a 5-field cron expression in UTC (minute hour day-of-month month day-of-week) or ' +
          '@hourly, @daily, @weekly, @monthly, @yearly. Missed runs (operator down) are made up once, not one by one.',
        maxLength: 128,
        default: DEFAULT_BACKUP_SCHEDULE,
        'x-kubernetes-validations': [
          {
            rule: `self.matches('${CRON_SHAPE}')`,
            message:
              'backup.schedule must be a cron expression with 5 fields (minute hour day-of-month month ' +
              'day-of-week), e.g. "*/5 * * * *", or one of @hourly, @daily, @weekly, @monthly, @yearly',
          },
        ],
      }),
    ),
    suspend: Type.Optional(
      Type.Boolean({
        description:
          'Pause scheduled backups. On-demand backups (PostgreSQLBackup objects) and the final backup still run.',
        default: false,
      }),
    ),
    retention: Type.Optional(RetentionSpec),
    onDelete: Type.Optional(OnDeleteSpec),
    s3: Type.Optional(S3StoreSpecSchema),
    job: Type.Optional(BackupJobSpec),
    verify: Type.Optional(BackupVerifySpec),
    encryption: Type.Optional(BackupEncryptionSpecSchema),
  },
  {
    description:
      'Logical backups (pg_dump, custom format) to the backup volume (served by the operator\'s backup store service), or to an S3 bucket (s3), each one ' +
      'decoded in full by pg_restore and checked in the store, and encrypted with age when encryption.recipients is set. Each backup runs as a Job in this namespace (job).',
    default: {},
  },
);

export const PostgreSQLSpecSchema = Type.Object(
  {
    db: Type.String({
      description: 'Name of the database to create and back up (a field of the original operator).',
      minLength: 1,
      maxLength: MAX_IDENTIFIER_LENGTH,
      'x-kubernetes-validations': [
        ...identifierRules('db', 'foo or app_db'),
        {
          rule: "!(self in ['template0', 'template1'])",
          message: 'db cannot be template0 or template1: those are PostgreSQL\'s templates for new databases',
        },
      ],
    }),
    user: Type.String({
      description: 'Name of the role that owns the database; the application connects as this user (a field of the original operator).',
      minLength: 1,
      maxLength: MAX_IDENTIFIER_LENGTH,
      'x-kubernetes-validations': [
        ...identifierRules('user', 'foo or app_user'),
        { rule: "!self.startsWith('pg_')", message: 'user cannot start with pg_: PostgreSQL reserves those role names' },
      ],
    }),
    password: Type.String({
      description:
        `Name of a Secret in the same namespace whose data.${PASSWORD_SECRET_KEY} holds the user's password ` +
        '(a field of the original operator).',
      minLength: 1,
      maxLength: 253,
      'x-kubernetes-validations': [
        {
          rule: `self.matches('${DNS_1123_SUBDOMAIN}')`,
          message:
            `password must be the name of a Secret (holding the key ${PASSWORD_SECRET_KEY}), not the password ` +
            "itself: lowercase letters, digits, '-' and '.'",
        },
      ],
    }),
    image: Type.Optional(
      Type.String({
        description:
          'PostgreSQL server image (the official image\'s environment contract). The operator needs the pg_dump and ' +
          "pg_restore of the server's major version, no other; without them backups fail and restores are refused with " +
          'reason PgToolMissing, saying which image to run the operator with.',
        minLength: 1,
        maxLength: 1024,
        default: DEFAULT_IMAGE,
      }),
    ),
    storage: Type.Optional(StorageSpec),
    resources: Type.Optional(ResourceRequirements),
    backup: Type.Optional(BackupSpec),
  },
  { description: 'PostgreSQLSpec: the database, its owner and password, and how it is backed up.' },
);
