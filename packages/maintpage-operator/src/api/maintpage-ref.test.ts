import { customResourceRef } from '@k8s-operators/controller-core';
import { expect, it } from 'vitest';
import { MaintPageRef } from './maintpage-ref.ts';
import { MaintPageResource } from './maintpage-resource.ts';

it('declares by hand the ref the CRD declaration implies, so the operator finds MaintPages where the CRD puts them', () => {
  expect(MaintPageRef).toEqual(customResourceRef(MaintPageResource));
});
