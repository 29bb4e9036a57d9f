import { fileURLToPath } from 'node:url';
import type { CrdFiles } from '@k8s-operators/controller-core/crd';
import { PostgreSQLBackupResource } from './postgresql-backup-resource.ts';
import { PostgreSQLResource } from './postgresql-resource.ts';

/** The PostgreSQL and PostgreSQLBackup CRDs, committed under deploy/postgresql-operator/crd/ (src/api and dist/api are equally deep). */
export const CRD_FILES: CrdFiles = {
  directory: fileURLToPath(new URL('../../../../deploy/postgresql-operator/crd/', import.meta.url)),
  regenerateCommand: 'npm run crds -w @k8s-operators/postgresql-operator',
  resources: [PostgreSQLResource, PostgreSQLBackupResource],
};
