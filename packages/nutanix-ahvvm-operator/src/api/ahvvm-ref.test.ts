import { crdManifest, customResourceRef } from '@k8s-operators/controller-core';
import { describe, expect, it } from 'vitest';
import { AHVVM_CRD_NAME, AhvVmRef } from './ahvvm-ref.ts';
import { AhvVmResource } from './ahvvm-resource.ts';

describe('AhvVmRef', () => {
  it('is the ref of the declared AhvVm API, so the runtime and the CRD cannot drift apart', () => {
    expect(AhvVmRef).toStrictEqual(customResourceRef(AhvVmResource));
  });

  it('names the CRD the finalizer asks about as the generated CRD is named', () => {
    expect(AHVVM_CRD_NAME).toBe(crdManifest(AhvVmResource).metadata.name);
  });
});
