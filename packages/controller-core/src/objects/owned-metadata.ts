import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import { controllerReference } from './owner-references.ts';
import { requiredNamespace } from './required-metadata.ts';

export interface OwnedObjectMetadata {
  name: string;
  labels: Record<string, string>;
  /** Left out of the metadata when not given, so applying the object claims no annotations. */
  annotations?: Record<string, string>;
}

/** Metadata that names its object in its namespace: what server-side apply needs, and what {@link ownedMetadata} builds. */
export type NamedMetadata = Omit<V1ObjectMeta, 'name' | 'namespace'> & { name: string; namespace: string };

/**
 * An object a reconciler builds to apply: every field of its type (so tests and comparisons read it as the object),
 * with named metadata, which is what lets `applyOwned` take it as it is, without a cast at each call.
 */
export type DesiredObject<T extends KubernetesObject> = Omit<T, 'metadata'> & { metadata: NamedMetadata };

/**
 * Metadata of an object a custom resource owns: in the owner's namespace (an owner reference cannot cross
 * namespaces), with the owner as controller, so deleting the owner deletes the object (garbage collection, the owner's
 * foreground deletion waiting for it) and changes to the object requeue the owner.
 */
export function ownedMetadata(owner: KubernetesObject, { name, labels, annotations }: OwnedObjectMetadata): NamedMetadata {
  return {
    name,
    namespace: requiredNamespace(owner),
    labels,
    ...(annotations === undefined ? {} : { annotations }),
    ownerReferences: [controllerReference(owner)],
  };
}
