import { fileURLToPath } from 'node:url';
import type { CrdFiles } from '@k8s-operators/controller-core/crd';
import { MaintPageResource } from './maintpage-resource.ts';

/** The MaintPage CRD, committed under deploy/maintpage-operator/crd/ (src/api and dist/api are equally deep). */
export const CRD_FILES: CrdFiles = {
  directory: fileURLToPath(new URL('../../../../deploy/maintpage-operator/crd/', import.meta.url)),
  regenerateCommand: 'npm run crds -w @k8s-operators/maintpage-operator',
  resources: [MaintPageResource],
};
