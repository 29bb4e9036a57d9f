import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import { controllerReference } from './owner-references.ts';
import { requiredNamespace } from './required-metadata.ts';

export interface OwnedObjectMetadata {
  name: string;
  labels: Record<string, string>;
  /** Left out of the metadata when not given, so applying the object claims no annotations. */
  annotations?: Record<string, string>;
}

/**
 * Metadata of an object a custom resource owns: in the owner's namespace (an owner reference cannot cross
 * namespaces), with the owner as controller, so deleting the owner deletes the object (garbage collection, the owner's
 * foreground deletion waiting for it) and changes to the object requeue the owner.
 */
export function ownedMetadata(owner: KubernetesObject, { name, labels, annotations }: OwnedObjectMetadata): V1ObjectMeta {
  return {
    name,
    namespace: requiredNamespace(owner),
    labels,
    ...(annotations === undefined ? {} : { annotations }),
    ownerReferences: [controllerReference(owner)],
  };
}
