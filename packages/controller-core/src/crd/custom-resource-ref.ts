import { defineResource, type ResourceRef } from '../client/resources.ts';
import type { CustomResource, CustomResourceDeclaration } from './define-custom-resource.ts';

/** The ResourceRef of a declared custom resource's storage version, for the client, informers and controllers. */
export function customResourceRef<Declaration extends CustomResourceDeclaration>(declaration: Declaration): ResourceRef<CustomResource<Declaration>> {
  return defineResource<CustomResource<Declaration>>({
    group: declaration.group,
    version: declaration.storageVersion,
    resource: declaration.plural,
    kind: declaration.kind,
    namespaced: declaration.scope === 'Namespaced',
  });
}
