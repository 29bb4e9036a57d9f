import { controllerReference } from '@k8s-operators/controller-core';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { MaintPage } from '../api/maintpage-resource.ts';
import { instanceNamespace } from './object-names.ts';

/**
 * Metadata of an object the MaintPage owns: its namespace, the labels given, and the MaintPage as controller, so
 * deleting the MaintPage deletes the object (garbage collection) and changes to it requeue the MaintPage.
 */
export function ownedMetadata(
  maintPage: MaintPage,
  name: string,
  labels: Record<string, string>,
  annotations?: Record<string, string>,
): V1ObjectMeta {
  return {
    name,
    namespace: instanceNamespace(maintPage),
    labels,
    ...(annotations === undefined ? {} : { annotations }),
    ownerReferences: [controllerReference(maintPage)],
  };
}
