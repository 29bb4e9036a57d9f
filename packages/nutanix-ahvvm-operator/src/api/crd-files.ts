import { fileURLToPath } from 'node:url';
import type { CrdFiles } from '@k8s-operators/controller-core/crd';
import { AhvVmResource } from './ahvvm-resource.ts';

/** The AhvVm CRD, committed under deploy/nutanix-ahvvm-operator/crd/ (src/api and dist/api are equally deep). */
export const CRD_FILES: CrdFiles = {
  directory: fileURLToPath(new URL('../../../../deploy/nutanix-ahvvm-operator/crd/', import.meta.url)),
  regenerateCommand: 'npm run crds -w @k8s-operators/nutanix-ahvvm-operator',
  resources: [AhvVmResource],
};
