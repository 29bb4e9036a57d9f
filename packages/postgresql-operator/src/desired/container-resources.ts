import type { V1ResourceRequirements } from '@kubernetes/client-node';
import type { ResourceRequirementsSpec } from '../api/resolve-spec.ts';

/** The CRD accepts `cpu: 1` as well as `cpu: "1"`; a container's resources are quantities written as strings. */
export function containerResources(resources: ResourceRequirementsSpec): V1ResourceRequirements {
  const asStrings = (quantities: Record<string, number | string>): Record<string, string> =>
    Object.fromEntries(Object.entries(quantities).map(([resource, quantity]) => [resource, String(quantity)]));
  return {
    ...(resources.requests === undefined ? {} : { requests: asStrings(resources.requests) }),
    ...(resources.limits === undefined ? {} : { limits: asStrings(resources.limits) }),
  };
}
