import { requiredName, requiredNamespace } from '@k8s-operators/controller-core';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import type { BackupTrigger } from '../api/backup-lifecycle.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { INSTANCE_LABEL } from './labels.ts';

/**
 * A PostgreSQLBackup the operator creates: one per schedule slot (`scheduledBackupName`), or the final backup before
 * the database is deleted. It has no owner reference on purpose: backups outlive their PostgreSQL unless
 * `backup.onDelete.backups` is `Delete`, so a PostgreSQL created again with the same name finds and restores them.
 */
export function desiredBackup(postgresql: PostgreSQL, name: string, trigger: BackupTrigger): PostgreSQLBackup {
  return {
    apiVersion: 'exp.wheel.jp/v1',
    kind: 'PostgreSQLBackup',
    metadata: { name, namespace: requiredNamespace(postgresql), labels: { [INSTANCE_LABEL]: requiredName(postgresql) } },
    spec: { postgresql: requiredName(postgresql), trigger },
  };
}

/**
 * The final backup's name, fixed for one PostgreSQL object (its UID), so a retried deletion finds the backup it
 * started instead of taking another, and a later PostgreSQL of the same name gets its own.
 */
export function finalBackupName(postgresql: PostgreSQL): string {
  const uid = postgresql.metadata.uid ?? '';
  return `${requiredName(postgresql)}-final-${uid.replace(/-/g, '').slice(0, 8)}`;
}
