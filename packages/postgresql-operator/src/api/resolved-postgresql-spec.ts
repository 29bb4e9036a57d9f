import { parseSchedule, type ScheduleParseResult } from '../schedule/schedule.ts';
import {
  DEFAULT_BACKUPS_ON_DELETE,
  DEFAULT_BACKUP_JOB_RESOURCES,
  DEFAULT_BACKUP_JOB_TTL_SECONDS,
  DEFAULT_BACKUP_SCHEDULE,
  DEFAULT_FINAL_BACKUP,
  DEFAULT_IMAGE,
  DEFAULT_KEEP_FAILED,
  DEFAULT_KEEP_LAST,
  DEFAULT_RESTORE_CHECK_RESOURCES,
  DEFAULT_RESTORE_CHECK_SCHEDULE,
  type BackupsOnDelete,
} from './defaults.ts';
import { DEFAULT_AGE_IDENTITY_KEY } from './backup-encryption.ts';
import { parseRetentionAge } from './retention-age.ts';
import type { PostgreSQLSpec } from './postgresql-resource.ts';
import { resolveS3Store, type ResolvedS3Store } from './resolved-s3-store.ts';

/** A container's resources as a Pod takes them: every quantity a string. */
export interface ContainerResources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

/** How many backups retention keeps, and for how long. */
export interface RetentionPolicy {
  keepLast: number;
  /** Milliseconds; absent means no age limit. */
  maxAgeMs?: number;
  keepFailed: number;
}

/**
 * The retention policy, or why `retention.maxAge` cannot be read. The API server refuses such an age, so only an object
 * stored before that rule has one; retention then fails with this message, as it always has, and nothing else stops.
 */
export type RetentionPolicyResult = { ok: true; policy: RetentionPolicy } | { ok: false; message: string };

/**
 * What a restore drill checks after the restore: always every user table's row count; with `spec.backup.verify.check`
 * also a query and the answer it must give.
 */
export interface RestoreCheckQuery {
  query: string;
  expect: string;
}

/**
 * Where a drill's check comes from: written in the spec, or in a ConfigMap (`check.configMapRef`) that is read when
 * each drill starts.
 */
export type RestoreCheckSource = { inline: RestoreCheckQuery } | { configMap: string };

/** `spec.backup.verify` resolved: absent means no drills. */
export interface ResolvedBackupVerify {
  schedule: ScheduleParseResult;
  check?: RestoreCheckSource;
  resources: ContainerResources;
}

/**
 * `PostgreSQL.spec` as the controllers act on it: every default filled in and every string they compute with parsed.
 * A schedule that cannot be parsed is a value too, for the `InvalidSchedule` condition, so the rest of the PostgreSQL
 * is still reconciled.
 */
export interface ResolvedPostgreSQLSpec {
  db: string;
  user: string;
  /** Name of the Secret holding the password. */
  password: string;
  image: string;
  /** Absent: the data lives in the pod (an emptyDir), as in the seed. The size is the quantity the claim requests. */
  storage?: { size: string; storageClassName?: string };
  resources?: ContainerResources;
  backup: {
    schedule: ScheduleParseResult;
    suspend: boolean;
    retention: RetentionPolicyResult;
    onDelete: { finalBackup: boolean; backups: BackupsOnDelete };
    /** Absent: the backup volume, as in the seed. */
    s3?: ResolvedS3Store;
    job: { resources: ContainerResources; ttlSecondsAfterFinished: number };
    /** Absent: no restore drills. */
    verify?: ResolvedBackupVerify;
    /** Absent: backups are not encrypted, and an encrypted one cannot be restored. */
    encryption?: ResolvedBackupEncryption;
  };
}

/**
 * `spec.backup.encryption` resolved. The recipients stay strings checked by the API server's pattern: their bech32
 * checksums are checked by the backup Job (parseAgeRecipients), which fails saying which one is wrong.
 */
export interface ResolvedBackupEncryption {
  /** Empty: new backups are not encrypted, those that are still restore with the identity. */
  recipients: readonly string[];
  identitySecret: { name: string; key: string };
}

/**
 * The spec resolved once, as a reconcile starts. The API server applies the CRD's defaults too, but an object read from
 * a fixture, or stored before a field existed, may lack them; nothing downstream has a default of its own.
 */
export function resolvePostgreSQLSpec(spec: PostgreSQLSpec): ResolvedPostgreSQLSpec {
  const { backup = {} } = spec;
  const { retention = {}, onDelete = {}, s3, job = {}, verify, encryption } = backup;
  return {
    db: spec.db,
    user: spec.user,
    password: spec.password,
    image: spec.image ?? DEFAULT_IMAGE,
    ...(spec.storage === undefined ? {} : { storage: spec.storage }),
    ...(spec.resources === undefined ? {} : { resources: containerResources(spec.resources) }),
    backup: {
      schedule: parseSchedule(backup.schedule ?? DEFAULT_BACKUP_SCHEDULE),
      suspend: backup.suspend ?? false,
      retention: retentionPolicy(retention),
      onDelete: {
        finalBackup: onDelete.finalBackup ?? DEFAULT_FINAL_BACKUP,
        backups: onDelete.backups ?? DEFAULT_BACKUPS_ON_DELETE,
      },
      ...(s3 === undefined ? {} : { s3: resolveS3Store(s3) }),
      job: {
        // Given resources replace the defaults as a whole, as a Pod's would: no mix of the two.
        resources: containerResources(job.resources ?? DEFAULT_BACKUP_JOB_RESOURCES),
        ttlSecondsAfterFinished: job.ttlSecondsAfterFinished ?? DEFAULT_BACKUP_JOB_TTL_SECONDS,
      },
      ...(verify === undefined ? {} : { verify: resolveVerify(verify) }),
      ...(encryption === undefined
        ? {}
        : {
            encryption: {
              recipients: encryption.recipients ?? [],
              identitySecret: { name: encryption.identitySecretRef.name, key: encryption.identitySecretRef.key ?? DEFAULT_AGE_IDENTITY_KEY },
            },
          }),
    },
  };
}

function resolveVerify(verify: NonNullable<NonNullable<PostgreSQLSpec['backup']>['verify']>): ResolvedBackupVerify {
  const { check } = verify;
  return {
    schedule: parseSchedule(verify.schedule ?? DEFAULT_RESTORE_CHECK_SCHEDULE),
    ...(check === undefined ? {} : restoreCheckSource(check)),
    resources: containerResources(verify.resources ?? DEFAULT_RESTORE_CHECK_RESOURCES),
  };
}

/** The API server refuses a check that is neither complete nor only a ConfigMap; one stored otherwise checks the row counts only. */
function restoreCheckSource(check: NonNullable<NonNullable<NonNullable<PostgreSQLSpec['backup']>['verify']>['check']>): { check?: RestoreCheckSource } {
  if (check.configMapRef !== undefined) return { check: { configMap: check.configMapRef.name } };
  return check.query === undefined || check.expect === undefined ? {} : { check: { inline: { query: check.query, expect: check.expect } } };
}

function retentionPolicy(retention: NonNullable<NonNullable<PostgreSQLSpec['backup']>['retention']>): RetentionPolicyResult {
  let maxAgeMs: number | undefined;
  try {
    maxAgeMs = retention.maxAge === undefined ? undefined : parseRetentionAge(retention.maxAge);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  return {
    ok: true,
    policy: {
      keepLast: retention.keepLast ?? DEFAULT_KEEP_LAST,
      ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
      keepFailed: retention.keepFailed ?? DEFAULT_KEEP_FAILED,
    },
  };
}

/** The CRD accepts `cpu: 1` as well as `cpu: "1"`; a container's resources are quantities written as strings. */
function containerResources(resources: NonNullable<PostgreSQLSpec['resources']>): ContainerResources {
  const asStrings = (quantities: Record<string, number | string>): Record<string, string> =>
    Object.fromEntries(Object.entries(quantities).map(([resource, quantity]) => [resource, String(quantity)]));
  return {
    ...(resources.requests === undefined ? {} : { requests: asStrings(resources.requests) }),
    ...(resources.limits === undefined ? {} : { limits: asStrings(resources.limits) }),
  };
}
