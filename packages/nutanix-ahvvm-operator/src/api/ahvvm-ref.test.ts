import { customResourceRef } from '@k8s-operators/controller-core';
import { describe, expect, it } from 'vitest';
import { AhvVmRef } from './ahvvm-ref.ts';
import { AhvVmResource } from './ahvvm-resource.ts';

describe('AhvVmRef', () => {
  it('is the ref of the declared AhvVm API, so the runtime and the CRD cannot drift apart', () => {
    expect(AhvVmRef).toStrictEqual(customResourceRef(AhvVmResource));
  });
});
