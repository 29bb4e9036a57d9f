import {
  DEFAULT_BACKUPS_ON_DELETE,
  DEFAULT_BACKUP_SCHEDULE,
  DEFAULT_FINAL_BACKUP,
  DEFAULT_IMAGE,
  DEFAULT_KEEP_FAILED,
  DEFAULT_KEEP_LAST,
  type BackupsOnDelete,
} from './defaults.ts';
import type { PostgreSQLSpec } from './postgresql-resource.ts';

/** `PostgreSQL.spec` with every default filled in: what the controller acts on. */
export interface ResolvedPostgreSQLSpec {
  db: string;
  user: string;
  /** Name of the Secret holding the password. */
  password: string;
  image: string;
  /** Absent: the data lives in the pod (an emptyDir), as in the seed. */
  storage?: { size: string; storageClassName?: string };
  resources?: { requests?: Record<string, number | string>; limits?: Record<string, number | string> };
  backup: {
    schedule: string;
    suspend: boolean;
    retention: { keepLast: number; maxAge?: string; keepFailed: number };
    onDelete: { finalBackup: boolean; backups: BackupsOnDelete };
  };
}

/**
 * The spec with the CRD's defaults applied. The API server applies the same defaults, but an object read from a
 * fixture, or stored before a field existed, may lack them; the controller reads every spec through this.
 */
export function resolvePostgreSQLSpec(spec: PostgreSQLSpec): ResolvedPostgreSQLSpec {
  const { backup = {} } = spec;
  const { retention = {}, onDelete = {} } = backup;
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
    },
  };
}
