import { defineResource } from '@k8s-operators/controller-core';
import type { AhvVm } from './ahvvm-resource.ts';

/**
 * The AhvVm's API coordinates, and its ResourceRef for the client, informers and the controller. Kept apart from the
 * TypeBox schema in ahvvm-resource.ts, which takes its coordinates from here, so that the operator process does not
 * spend memory on schema code it never runs. ahvvm-ref.test.ts checks that the two agree.
 */
export const AHVVM = { group: 'nutanix.com', version: 'v1alpha1', kind: 'AhvVm', plural: 'ahvvms' } as const;

/** The CRD's name: its deletion (the operator uninstalled) is what the finalizer asks about before it deletes a VM. */
export const AHVVM_CRD_NAME = `${AHVVM.plural}.${AHVVM.group}`;

export const AhvVmRef = defineResource<AhvVm>({
  group: AHVVM.group,
  version: AHVVM.version,
  resource: AHVVM.plural,
  kind: AHVVM.kind,
  namespaced: true,
});
