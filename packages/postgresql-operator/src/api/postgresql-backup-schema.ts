import { Type } from 'typebox';
import { DEFAULT_BACKUP_TRIGGER } from './backup-lifecycle.ts';
import { S3StoreSpecSchema } from './backup-s3-spec.ts';
import { DNS_1123_SUBDOMAIN, SHA256_HEX } from './formats.ts';
import { RestoreCheckStatusSchema } from './restore-check-status-schema.ts';

export const PostgreSQLBackupSpecSchema = Type.Object(
  {
    postgresql: Type.String({
      description: 'Name of the PostgreSQL (in the same namespace) to back up.',
      minLength: 1,
      maxLength: 253,
      'x-kubernetes-validations': [
        {
          rule: `self.matches('${DNS_1123_SUBDOMAIN}')`,
          message: "postgresql must be the name of a PostgreSQL object: lowercase letters, digits, '-' and '.'",
        },
        {
          rule: 'self == oldSelf',
          message: 'postgresql cannot be changed: a backup belongs to one database; create a new PostgreSQLBackup',
        },
      ],
    }),
    trigger: Type.Optional(
      Type.Union([Type.Literal('Scheduled'), Type.Literal('OnDemand'), Type.Literal('Final')], {
        description:
          'Who asked for the backup: OnDemand (a user; the default), Scheduled (the operator\'s schedule) or Final (the ' +
          'PostgreSQL was deleted). Retention deletes only Scheduled backups.',
        default: DEFAULT_BACKUP_TRIGGER,
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'trigger cannot be changed' }],
      }),
    ),
  },
  { description: 'PostgreSQLBackupSpec: which database to back up.' },
);

const timestamp = (description: string) => Type.String({ description, format: 'date-time' });

export const PostgreSQLBackupStatusSchema = Type.Object(
  {
    phase: Type.Optional(
      Type.Union([Type.Literal('Pending'), Type.Literal('Running'), Type.Literal('Completed'), Type.Literal('Failed')], {
        description:
          'Pending (waiting for the database or another backup of it), Running, Completed (stored, decoded in full ' +
          'and checked in the store) or Failed (see error; nothing was stored).',
      }),
    ),
    restoreCheck: Type.Optional(RestoreCheckStatusSchema),
    startTime: Type.Optional(timestamp('When pg_dump started.')),
    completionTime: Type.Optional(timestamp('When the backup completed or failed.')),
    sizeBytes: Type.Optional(
      Type.Integer({ description: 'Size of the stored dump in bytes.', format: 'int64', minimum: 0 }),
    ),
    sha256: Type.Optional(
      Type.String({ description: 'SHA-256 of the stored dump, hex, computed while it was written.', pattern: SHA256_HEX }),
    ),
    verified: Type.Optional(
      Type.Boolean({
        description:
          'true once pg_restore decoded the whole dump while it was written and the store holds it with the same size ' +
          'and SHA-256 (read back, or confirmed by a bucket\'s ETag); false when a later check found it damaged, which keeps it from being restored.',
      }),
    ),
    serverVersion: Type.Optional(Type.String({ description: 'PostgreSQL server version dumped, e.g. 15.18.' })),
    pgDumpVersion: Type.Optional(Type.String({ description: 'Version of the pg_dump that wrote the dump.' })),
    error: Type.Optional(Type.String({ description: 'Why the backup failed, or why it is no longer usable.' })),
    reason: Type.Optional(
      Type.Literal('PgToolMissing', {
        description:
          "Set on a Failed backup whose cause no retry gets past: PgToolMissing, the operator's image has no pg_dump or " +
          "pg_restore of the server's major (error lists what it found and which image to use). Absent for other failures.",
      }),
    ),
    s3: Type.Optional(
      Type.Object(S3StoreSpecSchema.properties, {
        description:
          "The S3 store the dump was written to: the PostgreSQL's spec.backup.s3 when the backup started. Absent: the " +
          "backup volume (through the operator's backup store service). The dump is read and deleted there, whatever the PostgreSQL names later.",
      }),
    ),
  },
  { description: 'PostgreSQLBackupStatus: where the backup stands, and what was stored.' },
);
