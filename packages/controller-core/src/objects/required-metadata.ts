import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * The name and namespace of an object the controller works on. An object read from the API server always has both
 * (a namespaced one); a missing one means the caller built the object by hand, so the error says so instead of
 * letting an empty name reach a child object's name, a label or a URL.
 */

function required(obj: KubernetesObject, field: string, value: string | undefined): string {
  if (value === undefined || value === '') {
    throw new Error(`${obj.kind ?? 'The object'} has no ${field}; pass the object as read from the API server`);
  }
  return value;
}

export function requiredName(obj: KubernetesObject): string {
  return required(obj, 'metadata.name', obj.metadata?.name);
}

export function requiredNamespace(obj: KubernetesObject): string {
  return required(obj, 'metadata.namespace', obj.metadata?.namespace);
}
