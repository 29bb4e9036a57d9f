import {
  DEFAULT_BACKUPS_ON_DELETE,
  DEFAULT_BACKUP_JOB_RESOURCES,
  DEFAULT_BACKUP_JOB_TTL_SECONDS,
  DEFAULT_BACKUP_SCHEDULE,
  DEFAULT_FINAL_BACKUP,
  DEFAULT_IMAGE,
  DEFAULT_KEEP_FAILED,
  DEFAULT_KEEP_LAST,
  DEFAULT_S3_REGION,
  type BackupsOnDelete,
} from './defaults.ts';
import type { PostgreSQLSpec } from './postgresql-resource.ts';

/** `spec.backup.s3` with its defaults. */
export interface ResolvedS3StoreSpec {
  bucket: string;
  /** Empty when there is none. */
  prefix: string;
  /** Absent: AWS S3 of the region. */
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Name of the Secret holding accessKeyId and secretAccessKey. */
  credentialsSecret: string;
  caBundle?: { configMapKeyRef?: { name: string; key: string }; secretKeyRef?: { name: string; key: string } };
}

export interface ResourceRequirementsSpec {
  requests?: Record<string, number | string>;
  limits?: Record<string, number | string>;
}

/** `PostgreSQL.spec` with every default filled in: what the controller acts on. */
export interface ResolvedPostgreSQLSpec {
  db: string;
  user: string;
  /** Name of the Secret holding the password. */
  password: string;
  image: string;
  /** Absent: the data lives in the pod (an emptyDir), as in the seed. */
  storage?: { size: string; storageClassName?: string };
  resources?: ResourceRequirementsSpec;
  backup: {
    schedule: string;
    suspend: boolean;
    retention: { keepLast: number; maxAge?: string; keepFailed: number };
    onDelete: { finalBackup: boolean; backups: BackupsOnDelete };
    /** Absent: the backup volume, as in the seed. */
    s3?: ResolvedS3StoreSpec;
    job: { resources: ResourceRequirementsSpec; ttlSecondsAfterFinished: number };
  };
}

/**
 * The spec with the CRD's defaults applied. The API server applies the same defaults, but an object read from a
 * fixture, or stored before a field existed, may lack them; the controller reads every spec through this.
 */
export function resolvePostgreSQLSpec(spec: PostgreSQLSpec): ResolvedPostgreSQLSpec {
  const { backup = {} } = spec;
  const { retention = {}, onDelete = {}, s3, job = {} } = backup;
  return {
    db: spec.db,
    user: spec.user,
    password: spec.password,
    image: spec.image ?? DEFAULT_IMAGE,
    ...(spec.storage === undefined ? {} : { storage: spec.storage }),
    ...(spec.resources === undefined ? {} : { resources: spec.resources }),
    backup: {
      schedule: backup.schedule ?? DEFAULT_BACKUP_SCHEDULE,
      suspend: backup.suspend ?? false,
      retention: {
        keepLast: retention.keepLast ?? DEFAULT_KEEP_LAST,
        ...(retention.maxAge === undefined ? {} : { maxAge: retention.maxAge }),
        keepFailed: retention.keepFailed ?? DEFAULT_KEEP_FAILED,
      },
      onDelete: {
        finalBackup: onDelete.finalBackup ?? DEFAULT_FINAL_BACKUP,
        backups: onDelete.backups ?? DEFAULT_BACKUPS_ON_DELETE,
      },
      ...(s3 === undefined ? {} : { s3: resolveS3StoreSpec(s3) }),
      job: {
        // Given resources replace the defaults as a whole, as a Pod's would: no mix of the two.
        resources: job.resources ?? DEFAULT_BACKUP_JOB_RESOURCES,
        ttlSecondsAfterFinished: job.ttlSecondsAfterFinished ?? DEFAULT_BACKUP_JOB_TTL_SECONDS,
      },
    },
  };
}

/** `spec.backup.s3` as written (or as a backup recorded it in `status.s3`). */
export type S3StoreSpecInput = NonNullable<NonNullable<PostgreSQLSpec['backup']>['s3']>;

/** An S3 store's fields with their defaults filled in. */
export function resolveS3StoreSpec(s3: S3StoreSpecInput): ResolvedS3StoreSpec {
  return {
    bucket: s3.bucket,
    prefix: s3.prefix ?? '',
    ...(s3.endpoint === undefined ? {} : { endpoint: s3.endpoint }),
    region: s3.region ?? DEFAULT_S3_REGION,
    forcePathStyle: s3.forcePathStyle ?? false,
    credentialsSecret: s3.credentialsSecret,
    ...(s3.caBundle === undefined ? {} : { caBundle: s3.caBundle }),
  };
}
