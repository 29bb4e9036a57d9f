// Writes deploy/postgresql-operator/crd/ from the API declared in code: `npm run crds -w @k8s-operators/postgresql-operator`.
import { fileURLToPath } from 'node:url';
import { writeCrds } from '@k8s-operators/controller-core/crd';
import { CUSTOM_RESOURCES, REGENERATE_CRDS_COMMAND } from './index.ts';

export const CRD_DIRECTORY = fileURLToPath(new URL('../../../../deploy/postgresql-operator/crd/', import.meta.url));

if (import.meta.main) {
  for (const path of await writeCrds(CUSTOM_RESOURCES, CRD_DIRECTORY, { regenerateCommand: REGENERATE_CRDS_COMMAND })) {
    console.log(`wrote ${path}`);
  }
}
