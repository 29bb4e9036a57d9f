import { defineResource } from '@k8s-operators/controller-core';
import type { AhvVm } from './ahvvm-resource.ts';

/**
 * The AhvVm's API coordinates, and its ResourceRef for the client, informers and the controller. Kept apart from the
 * TypeBox schema in ahvvm-resource.ts, which takes its coordinates from here, so that the operator process loads no
 * schema code (with the schema loaded the operator took about 6 MiB more RSS). ahvvm-ref.test.ts checks that the two
 * agree.
 */
export const AHVVM = { group: 'nutanix.com', version: 'v1alpha1', kind: 'AhvVm', plural: 'ahvvms' } as const;

export const AhvVmRef = defineResource<AhvVm>({
  group: AHVVM.group,
  version: AHVVM.version,
  resource: AHVVM.plural,
  kind: AHVVM.kind,
  namespaced: true,
});
