import { createHash } from 'node:crypto';
import type { V1Job, V1ServiceAccount, V1VolumeProjection } from '@kubernetes/client-node';
import { type DesiredObject, ownedMetadata, requiredName, restrictedContainerSecurityContext, restrictedPodSecurityContext } from '@k8s-operators/controller-core';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { BackupTrigger } from '../api/backup-lifecycle.ts';
import { PASSWORD_SECRET_KEY } from '../api/password-secret.ts';
import type { ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import type { ResolvedS3Store } from '../api/resolved-s3-store.ts';
import { S3_ACCESS_KEY_ID_KEY, S3_SECRET_ACCESS_KEY_KEY } from '../api/s3-credentials-secret.ts';
import {
  BACKUP_JOB_FILES,
  BACKUP_JOB_INPUT_ENV,
  BACKUP_JOB_SECRETS_DIR,
  BACKUP_JOB_SUBCOMMAND,
  TERMINATION_MESSAGE_PATH,
  type BackupJobInput,
  type BackupJobStore,
} from '../backup-job/backup-job-contract.ts';
import type { StoreEndpoint } from '../store-service/remote-store.ts';
import { BACKUP_STORE_AUDIENCE } from '../store-service/store-protocol.ts';
import { POSTGRES_PORT } from '../postgres/connection.ts';
import { instanceLabels, MANAGED_BY } from './labels.ts';

/**
 * The Job a backup runs as, and the ServiceAccount its Pod runs under. The Job is the record of a running
 * backup: it is named after the PostgreSQLBackup (so a second create is AlreadyExists, never a second backup), owned
 * by it, and runs once (no retries: a failed backup is Failed, and the schedule takes the next one).
 *
 * Its Pod passes the restricted Pod Security Standard: non-root, no privilege escalation, no capabilities, the
 * runtime's seccomp profile, a read-only root. It talks to no API server (no API token is mounted, its ServiceAccount
 * has no permissions): the database password and the store's credentials are files of a projected volume (from the
 * Secrets the PostgreSQL names, or for the backup volume a token bound to the backup store service's audience, which
 * lets it write this PostgreSQL's backups only), and the outcome is its termination message.
 */

/** On the Job and its Pod: the PostgreSQL whose backup it runs. Not the instance label: a Job Pod is no database pod. */
export const BACKUP_JOB_LABEL = 'exp.wheel.jp/backup-of';
/** The backup Job's one container, whose termination message is the backup's outcome. */
export const BACKUP_JOB_CONTAINER = 'backup';
/** The user of the operator image (distroless nonroot). */
const IMAGE_USER_ID = 65532;
const MAX_LABEL_VALUE = 63;

/** The Job's name: the backup's, cut to fit a label value (job-name) with a hash of the whole name when cut. */
export function backupJobName(backup: PostgreSQLBackup): string {
  const name = backup.metadata.name ?? '';
  const suffix = '-backup';
  if (name.length + suffix.length <= MAX_LABEL_VALUE) return `${name}${suffix}`;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  const head = name.slice(0, MAX_LABEL_VALUE - suffix.length - hash.length - 1).replace(/[-.]+$/, '');
  return `${head}-${hash}${suffix}`;
}

export function backupServiceAccountName(postgresql: PostgreSQL): string {
  return `${requiredName(postgresql)}-backup`;
}

/** Owned by the PostgreSQL, shared by its backup Jobs. Nothing is bound to it. */
export function desiredBackupServiceAccount(postgresql: PostgreSQL): DesiredObject<V1ServiceAccount> {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: ownedMetadata(postgresql, { name: backupServiceAccountName(postgresql), labels: instanceLabels(requiredName(postgresql)) }),
    automountServiceAccountToken: false,
  };
}

/** Where a Job writes: the bucket the spec names, or the backup volume through the backup store service. */
export type BackupJobTarget = { kind: 's3'; s3: ResolvedS3Store } | { kind: 'volume'; endpoint: Required<StoreEndpoint> };

export interface BackupJobRequest {
  backup: PostgreSQLBackup;
  /** The backup's resolved `spec.trigger`. */
  trigger: BackupTrigger;
  postgresql: PostgreSQL;
  spec: ResolvedPostgreSQLSpec;
  target: BackupJobTarget;
  /** The address of the pod that serves the database. */
  podIP: string;
  /** The operator's own image. */
  image: string;
}

/** Tokens the kubelet projects for the backup store live this long (the shortest it allows is 10 minutes). */
const STORE_TOKEN_SECONDS = 3600;

function secretProjections(spec: ResolvedPostgreSQLSpec, target: BackupJobTarget): V1VolumeProjection[] {
  const password: V1VolumeProjection = { secret: { name: spec.password, items: [{ key: PASSWORD_SECRET_KEY, path: BACKUP_JOB_FILES.password }] } };
  if (target.kind === 'volume') {
    return [password, { serviceAccountToken: { audience: BACKUP_STORE_AUDIENCE, expirationSeconds: STORE_TOKEN_SECONDS, path: BACKUP_JOB_FILES.storeToken } }];
  }
  const { s3 } = target;
  const projections: V1VolumeProjection[] = [
    password,
    {
      secret: {
        name: s3.credentialsSecret,
        items: [
          { key: S3_ACCESS_KEY_ID_KEY, path: BACKUP_JOB_FILES.accessKeyId },
          { key: S3_SECRET_ACCESS_KEY_KEY, path: BACKUP_JOB_FILES.secretAccessKey },
        ],
      },
    },
  ];
  const ca = s3.caBundle;
  if (ca?.configMapKeyRef !== undefined) projections.push({ configMap: { name: ca.configMapKeyRef.name, items: [{ key: ca.configMapKeyRef.key, path: BACKUP_JOB_FILES.caBundle }] } });
  else if (ca?.secretKeyRef !== undefined) projections.push({ secret: { name: ca.secretKeyRef.name, items: [{ key: ca.secretKeyRef.key, path: BACKUP_JOB_FILES.caBundle }] } });
  return projections;
}

function jobStore(target: BackupJobTarget): BackupJobStore {
  if (target.kind === 'volume') return { kind: 'volume', ...target.endpoint };
  return { kind: 's3', ...target.s3.location, caBundle: target.s3.caBundle !== undefined };
}

export function desiredBackupJob(request: BackupJobRequest): DesiredObject<V1Job> {
  const { backup, trigger, postgresql, spec, target, podIP, image } = request;
  const name = requiredName(postgresql);
  const input: BackupJobInput = {
    key: { namespace: backup.metadata.namespace ?? '', postgresql: name, backup: backup.metadata.name ?? '' },
    trigger,
    connection: { host: podIP, port: POSTGRES_PORT, database: spec.db, user: spec.user },
    store: jobStore(target),
    // Only new backups follow the recipients; an emptied list stops encrypting them.
    ...(spec.backup.encryption === undefined || spec.backup.encryption.recipients.length === 0 ? {} : { encryption: { recipients: [...spec.backup.encryption.recipients] } }),
  };
  const labels = {
    'app.kubernetes.io/name': 'postgresql-backup',
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': MANAGED_BY,
    [BACKUP_JOB_LABEL]: name,
  };
  const { job } = spec.backup;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: ownedMetadata(backup, { name: backupJobName(backup), labels }),
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: job.ttlSecondsAfterFinished,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: backupServiceAccountName(postgresql),
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: restrictedPodSecurityContext({ runAsUserAndGroup: IMAGE_USER_ID }),
          containers: [
            {
              name: BACKUP_JOB_CONTAINER,
              image,
              args: [BACKUP_JOB_SUBCOMMAND, `--secrets-dir=${BACKUP_JOB_SECRETS_DIR}`, `--termination-log=${TERMINATION_MESSAGE_PATH}`],
              env: [{ name: BACKUP_JOB_INPUT_ENV, value: JSON.stringify(input) }],
              resources: job.resources,
              terminationMessagePath: TERMINATION_MESSAGE_PATH,
              // A process that dies before writing its outcome (OOM-killed) still leaves the end of its log there.
              terminationMessagePolicy: 'FallbackToLogsOnError',
              securityContext: restrictedContainerSecurityContext({ readOnlyRootFilesystem: true }),
              volumeMounts: [
                { name: 'secrets', mountPath: BACKUP_JOB_SECRETS_DIR, readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'secrets', projected: { sources: secretProjections(spec, target) } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
  };
}
