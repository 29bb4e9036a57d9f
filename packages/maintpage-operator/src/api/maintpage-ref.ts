import { defineResource } from '@k8s-operators/controller-core';
import type { MaintPage } from './maintpage-resource.ts';

/**
 * The MaintPage's API coordinates, and its ResourceRef for the client and informers. Kept apart from the TypeBox
 * schema in maintpage-resource.ts, which takes these coordinates from here, so the operator process loads no schema
 * code, which would add to its RSS (the README's Benchmark has the figures). A test checks the ref against the one
 * derived from the schema.
 */
export const MAINTPAGE = {
  group: 'maintpage.example.com',
  version: 'v1alpha1',
  kind: 'MaintPage',
  plural: 'maintpages',
} as const;

/** Where MaintPages live in the API: `maintpage.example.com/v1alpha1` `maintpages`, namespaced. */
export const MaintPageRef = defineResource<MaintPage>({
  group: MAINTPAGE.group,
  version: MAINTPAGE.version,
  resource: MAINTPAGE.plural,
  kind: MAINTPAGE.kind,
  namespaced: true,
});
