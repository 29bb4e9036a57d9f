// Public API of @k8s-operators/postgresql-operator's cluster-independent core: the API types, the backup store,
// pg_dump / pg_restore, database inspection, schedule and retention. The reconcilers build on these.

export * from './api/index.ts';

export {
  BackupStoreError,
  checkBackupKey,
  formatBackupKey,
  type BackupKey,
  type BackupScope,
  type BackupStore,
  type ChecksumCheck,
  type StoreListing,
  type StoredData,
} from './stores/store.ts';
export { DEFAULT_BACKUP_DIRECTORY, DirectoryBackupStore } from './stores/directory-store.ts';
export {
  InvalidManifestError,
  MANIFEST_VERSION,
  parseManifest,
  serializeManifest,
  type BackupManifest,
} from './stores/manifest.ts';
export { LOCK_WAIT_TIMEOUT, dumpDatabase, type DumpOptions } from './dump/pg-dump.ts';
export { DumpVerificationError, readBackDump, type ReadBackOptions } from './dump/read-back.ts';
export { BackupFailedError, runBackup, type BackupRequest, type BackupStage } from './dump/run-backup.ts';
export { scheduledBackupName } from './desired/backup-name.ts';

export {
  selectRestoreCandidates,
  type RestoreCandidates,
  type SkipReason,
  type SkippedBackup,
} from './restore/candidates.ts';
export {
  BackupCorruptedError,
  DatabaseNotEmptyError,
  RestoreFailedError,
  restoreBackup,
  type RestoreReport,
  type RestoreRequest,
} from './restore/restore-backup.ts';
export { restoreLatestBackup, type LatestRestoreRequest, type LatestRestoreResult } from './restore/restore-latest.ts';

export {
  OPERATOR_APPLICATION_NAME,
  POSTGRES_PORT,
  connectionParameters,
  forDatabase,
  maskSecrets,
  passwordFromSecret,
  pgClientConfig,
  pgToolEnvironment,
  withConnection,
  withMaskedSecrets,
  type ConnectionParameters,
  type PasswordFromSecret,
} from './postgres/connection.ts';
export {
  MAX_REPORTED_OBJECTS,
  isDatabaseEmpty,
  serverVersion,
  type DatabaseContents,
  type ServerVersion,
} from './postgres/inspect.ts';
export {
  DEFAULT_POSTGRES_LIB_DIRECTORY,
  PgToolNotFoundError,
  choosePgTool,
  discoverPgTools,
  locatePgTool,
  majorOfVersion,
  majorOfVersionNum,
  parseToolVersion,
  type DiscoverOptions,
  type InstalledPgTool,
  type PgToolChoice,
  type PgToolName,
  type PgToolRequirement,
} from './postgres/tools-version.ts';
export { PgToolError } from './postgres/tool-process.ts';

export {
  MAX_COUNTED_MISSED_SLOTS,
  parseSchedule,
  scheduleDecision,
  type BackupSchedule,
  type ScheduleDecision,
  type ScheduleParseResult,
  type ScheduleState,
} from './schedule/schedule.ts';
export {
  planRetention,
  type RetentionInput,
  type RetentionPlan,
  type RetentionReason,
  type RetentionVerdict,
} from './retention/retention.ts';
export { parseRetentionAge } from './api/retention-age.ts';
export type { RetentionPolicy } from './api/resolved-postgresql-spec.ts';

export { registerPostgreSQLMetrics, type PostgreSQLMetrics } from './metrics/postgresql-metrics.ts';
export { createBackupStoreMetrics, type BackupStoreMetrics } from './metrics/backup-store-metrics.ts';
