import type { ResourceRef } from './resources.ts';

/**
 * The URL path of a resource collection or object: `/api/v1/namespaces/ns/configmaps/name/status`.
 * A namespaced resource without a namespace addresses the collection across all namespaces (lists and watches only);
 * a namespace on a cluster-scoped resource is a mistake and throws, rather than being dropped silently.
 */
export function resourcePath(
  ref: ResourceRef,
  at: { namespace?: string | undefined; name?: string | undefined; subresource?: string | undefined } = {},
): string {
  const namespace = at.namespace === '' ? undefined : at.namespace;
  if (namespace !== undefined && !ref.namespaced) {
    throw new Error(`${ref.kind} is cluster-scoped; got namespace ${JSON.stringify(namespace)}`);
  }
  if (at.name !== undefined && ref.namespaced && namespace === undefined) {
    throw new Error(`${ref.kind} ${JSON.stringify(at.name)} is namespaced; give its namespace`);
  }
  let path = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (namespace !== undefined) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${ref.resource}`;
  if (at.name !== undefined) {
    if (at.name === '') throw new Error(`${ref.kind}: empty name`);
    path += `/${encodeURIComponent(at.name)}`;
  }
  if (at.subresource !== undefined) path += `/${at.subresource}`;
  return path;
}
