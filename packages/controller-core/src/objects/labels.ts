import type { KubernetesObject } from '@kubernetes/client-node';

/** Whether `obj` carries every label of an equality-based selector (`{ app: 'web' }`) with that value. */
export function matchesLabels(obj: KubernetesObject, selector: Readonly<Record<string, string>>): boolean {
  return Object.entries(selector).every(([key, value]) => obj.metadata?.labels?.[key] === value);
}
