import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Work-queue and cache keys, in client-go's `MetaNamespaceKeyFunc` format: `namespace/name` for namespaced objects,
 * `name` for cluster-scoped ones.
 */

export interface ObjectKey {
  namespace?: string;
  name: string;
}

/** `namespace/name`, or `name` when the object has no namespace. Throws when the object has no name. */
export function objectKey(obj: KubernetesObject | ObjectKey): string {
  const { namespace, name } = 'name' in obj ? obj : { namespace: obj.metadata?.namespace, name: obj.metadata?.name };
  if (name === undefined || name === '') throw new Error('objectKey: the object has no metadata.name');
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}

/** The key of `obj`, a `kind` (for the message) as read or stored. Throws when the object has no name. */
export function keyOf(ref: { kind: string }, obj: KubernetesObject): ObjectKey {
  const name = obj.metadata?.name;
  if (name === undefined || name === '') throw new Error(`${ref.kind}: the object has no metadata.name`);
  const namespace = obj.metadata?.namespace;
  return namespace === undefined || namespace === '' ? { name } : { namespace, name };
}

/** Inverse of {@link objectKey}. Throws on a key that `objectKey` cannot have produced. */
export function parseObjectKey(key: string): ObjectKey {
  const [first = '', second, ...rest] = key.split('/');
  if (second === undefined && first !== '') return { name: first };
  if (second !== undefined && rest.length === 0 && first !== '' && second !== '') return { namespace: first, name: second };
  throw new Error(`parseObjectKey: ${JSON.stringify(key)} is neither "name" nor "namespace/name"`);
}
