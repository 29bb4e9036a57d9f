import type { V1Pod } from '@kubernetes/client-node';
import { type DesiredObject, ownedMetadata, requiredName } from '@k8s-operators/controller-core';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { ResolvedBackupVerify, ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { DATA_VOLUME, databasePodSpec } from './desired-deployment.ts';
import { MANAGED_BY } from './labels.ts';

/**
 * The scratch pod a restore drill restores a backup into: a PostgreSQL server like the database's own (its image, user,
 * database and password Secret, restricted Pod Security: `databasePodSpec`), with its data in an emptyDir that goes
 * with it, the drill's own resources, and nothing that connects it to the live database:
 *
 * - labels that no Service, Deployment or operator index selects: not the instance label `exp.wheel.jp/postgresql`
 *   (the database's Deployment, Service and pod index), nor the seed's `name`/`managedBy` (users' own selectors);
 * - no restarts (`Never`): a scratch server that dies midway is a drill interrupted, retried with a new pod, never a
 *   server that comes back empty and is checked as if restored;
 * - no API token; owned by the PostgreSQL, so it goes with it.
 *
 * One per PostgreSQL, with a fixed name: a second create is AlreadyExists, never a second scratch pod.
 */

/** On the scratch pod: the PostgreSQL whose backup it restores. */
export const RESTORE_CHECK_LABEL = 'exp.wheel.jp/restore-check-of';
/** On the scratch pod: the PostgreSQLBackup it restores. */
export const RESTORE_CHECK_BACKUP_ANNOTATION = 'exp.wheel.jp/restore-check-backup';

export function restoreCheckPodName(postgresql: PostgreSQL): string {
  return `${requiredName(postgresql)}-restore-check`;
}

export function restoreCheckPodLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'postgresql-restore-check',
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': MANAGED_BY,
    [RESTORE_CHECK_LABEL]: name,
  };
}

export function desiredRestoreCheckPod(postgresql: PostgreSQL, spec: ResolvedPostgreSQLSpec, verify: ResolvedBackupVerify, backup: string): DesiredObject<V1Pod> {
  const labels = restoreCheckPodLabels(requiredName(postgresql));
  const pod = databasePodSpec(spec, { dataVolume: { name: DATA_VOLUME, emptyDir: {} }, resources: verify.resources });
  pod.restartPolicy = 'Never';
  pod.automountServiceAccountToken = false;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: ownedMetadata(postgresql, { name: restoreCheckPodName(postgresql), labels, annotations: { [RESTORE_CHECK_BACKUP_ANNOTATION]: backup } }),
    spec: pod,
  };
}
