import { fileURLToPath } from 'node:url';
import type { CustomResourceDeclaration } from '@k8s-operators/controller-core';
import { AhvVmResource } from './ahvvm-resource.ts';

/** Where the generated CRDs are committed, and how to regenerate them (named in the file header and in test failures). */
export const CRD_DIRECTORY = fileURLToPath(new URL('../../../../deploy/nutanix-ahvvm-operator/crd/', import.meta.url));
export const REGENERATE_COMMAND = 'npm run crds -w @k8s-operators/nutanix-ahvvm-operator';
export const CRD_DECLARATIONS: readonly CustomResourceDeclaration[] = [AhvVmResource];
