/**
 * Defaults of the optional PostgreSQL fields. The CRD declares them (so `kubectl get -o yaml` shows them) and
 * `resolvePostgreSQLSpec` falls back to the same values, so an object that never went through the API server's
 * defaulting (a test fixture, an object stored before a field existed) is read the same way.
 */

/**
 * The server image. 15 is the PostgreSQL the operator image carries client tools for first, and the one the local test
 * node runs (the machine's /usr/lib/postgresql/15). Any `postgres:<major>` works as long as the operator's image carries
 * that major's pg_dump and pg_restore; when it does not, backups and restores fail at once with PgToolMissing.
 */
export const DEFAULT_IMAGE = 'postgres:15';

/** The seed backed up every 5 seconds; a cron schedule cannot go below a minute, and every 5 minutes is the default. */
export const DEFAULT_BACKUP_SCHEDULE = '*/5 * * * *';

/** Verified scheduled backups kept: one hour at the default schedule. */
export const DEFAULT_KEEP_LAST = 12;

/** Failed (or later found unusable) scheduled backups kept for inspection; older ones are deleted. */
export const DEFAULT_KEEP_FAILED = 3;

export const MAX_KEEP_LAST = 1000;
export const MAX_KEEP_FAILED = 100;

/** What happens to the stored backups when their PostgreSQL is deleted. `Retain` keeps the seed's behaviour. */
export const BACKUPS_ON_DELETE = ['Retain', 'Delete'] as const;
export type BackupsOnDelete = (typeof BACKUPS_ON_DELETE)[number];
export const DEFAULT_BACKUPS_ON_DELETE: BackupsOnDelete = 'Retain';

/** Take a last backup before the database is deleted, so the newest data survives the PostgreSQL object. */
export const DEFAULT_FINAL_BACKUP = true;

/** The S3 region when `spec.backup.s3.region` is not set: AWS's default; self-hosted stores accept any in signatures. */
export const DEFAULT_S3_REGION = 'us-east-1';

/** A backup Job's container: one pg_dump, its decode check and the upload (two 16 MiB parts in memory at most). */
export const DEFAULT_BACKUP_JOB_RESOURCES = { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } } as const;
/** A failed backup's Job stays a day for its logs. */
export const DEFAULT_BACKUP_JOB_TTL_SECONDS = 86_400;

/** Restore drills (`spec.backup.verify`) run once a day at 03:00 UTC unless a schedule is given. */
export const DEFAULT_RESTORE_CHECK_SCHEDULE = '0 3 * * *';
/** A drill's scratch PostgreSQL: one restore and one check, then it is deleted. */
export const DEFAULT_RESTORE_CHECK_RESOURCES = { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } } as const;
