// The postgresql-operator API: `exp.wheel.jp/v1` `PostgreSQL` and `PostgreSQLBackup`.
export { API_GROUP, API_VERSION, PostgreSQLBackupRef, PostgreSQLRef } from './postgresql-refs.ts';
export {
  PostgreSQLResource,
  type PostgreSQL,
  type PostgreSQLSpec,
  type PostgreSQLStatus,
} from './postgresql-resource.ts';
export {
  PostgreSQLBackupResource,
  type PostgreSQLBackup,
  type PostgreSQLBackupSpec,
  type PostgreSQLBackupStatus,
} from './postgresql-backup-resource.ts';
export {
  BACKUP_PHASES,
  BACKUP_TRIGGERS,
  DEFAULT_BACKUP_TRIGGER,
  type BackupPhase,
  type BackupTrigger,
} from './backup-lifecycle.ts';
export { PASSWORD_SECRET_KEY } from './password-secret.ts';
export { PostgreSQLConditionType } from './postgresql-conditions.ts';
export * from './defaults.ts';
export { resolvePostgreSQLSpec, type ResolvedPostgreSQLSpec } from './resolved-postgresql-spec.ts';
export { resolvePostgreSQLBackup, type ResolvedPostgreSQLBackup } from './resolved-postgresql-backup.ts';
export type { ResolvedS3Store, S3Location } from './resolved-s3-store.ts';
export { S3_ACCESS_KEY_ID_KEY, S3_SECRET_ACCESS_KEY_KEY } from './s3-credentials-secret.ts';
