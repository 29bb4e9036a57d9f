import { DEFAULT_S3_REGION } from './defaults.ts';
import type { PostgreSQLSpec } from './postgresql-resource.ts';

/** `spec.backup.s3` as written, and as a backup records the store it was written to in `status.s3`. */
export type S3StoreSpec = NonNullable<NonNullable<PostgreSQLSpec['backup']>['s3']>;

/**
 * Where a bucket's backups are: everything a client needs to reach them except the credentials. The operator's store
 * and the backup Job's input take it whole.
 */
export interface S3Location {
  readonly bucket: string;
  /** Empty when there is none. */
  readonly prefix: string;
  /** Absent: AWS S3 of the region. */
  readonly endpoint?: string;
  readonly region: string;
  readonly forcePathStyle: boolean;
}

/** The ConfigMap or Secret key that holds a store's PEM CA bundle. */
export type CaBundleSource = NonNullable<S3StoreSpec['caBundle']>;

/** An S3 store with its defaults applied: its location, and the objects in the namespace that hold its secrets. */
export interface ResolvedS3Store {
  readonly location: S3Location;
  /** Name of the Secret holding accessKeyId and secretAccessKey. */
  readonly credentialsSecret: string;
  readonly caBundle?: CaBundleSource;
}

/** A PostgreSQL's `spec.backup.s3`, or the `status.s3` a backup recorded, with the defaults filled in. */
export function resolveS3Store(s3: S3StoreSpec): ResolvedS3Store {
  return {
    location: {
      bucket: s3.bucket,
      prefix: s3.prefix ?? '',
      ...(s3.endpoint === undefined ? {} : { endpoint: s3.endpoint }),
      region: s3.region ?? DEFAULT_S3_REGION,
      forcePathStyle: s3.forcePathStyle ?? false,
    },
    credentialsSecret: s3.credentialsSecret,
    ...(s3.caBundle === undefined ? {} : { caBundle: s3.caBundle }),
  };
}

/**
 * The store as a backup records it in `status.s3` when it starts: every field with its default, so the backup's dump is
 * found where it went even if a later version changes a default.
 */
export function s3StoreRecord(store: ResolvedS3Store): S3StoreSpec {
  return {
    ...store.location,
    credentialsSecret: store.credentialsSecret,
    ...(store.caBundle === undefined ? {} : { caBundle: store.caBundle }),
  };
}
