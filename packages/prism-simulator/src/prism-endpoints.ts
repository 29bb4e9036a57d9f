// The Prism Central v3 endpoints the simulator serves, named `METHOD /path-template`. The names are what
// fault rules match on and what the request log counts by.

import { templateMatcher } from './endpoint-templates.ts';
import { V4_ENDPOINTS, type V4Endpoint } from './v4-endpoints.ts';

export const PRISM_BASE_PATH = '/api/nutanix/v3';

export const PRISM_ENDPOINTS = [
  'POST /vms',
  'GET /vms/{uuid}',
  'PUT /vms/{uuid}',
  'DELETE /vms/{uuid}',
  'POST /vms/list',
  'POST /clusters/list',
  'GET /clusters/{uuid}',
  'POST /images/list',
  'GET /images/{uuid}',
  'POST /subnets/list',
  'GET /subnets/{uuid}',
  'POST /hosts/list',
  'POST /projects/list',
  'GET /projects/{uuid}',
  'POST /groups',
  'POST /categories/list',
  'GET /categories/{name}',
  'PUT /categories/{name}',
  'DELETE /categories/{name}',
  'POST /categories/{name}/list',
  'GET /categories/{name}/{value}',
  'PUT /categories/{name}/{value}',
  'DELETE /categories/{name}/{value}',
  'GET /tasks/{uuid}',
  'POST /idempotence_identifiers',
  'GET /idempotence_identifiers/{client_identifier}',
  'DELETE /idempotence_identifiers/{client_identifier}',
  'GET /users/me',
] as const;

export type PrismEndpoint = (typeof PRISM_ENDPOINTS)[number];

/** Every endpoint the simulator serves, v3 and v4: what fault rules and request counts name. */
export const SIMULATED_ENDPOINTS = [...PRISM_ENDPOINTS, ...V4_ENDPOINTS] as const;
export type SimulatedEndpoint = PrismEndpoint | V4Endpoint;

export interface EndpointMatch {
  endpoint: PrismEndpoint;
  /** The first `{...}` segment of the path, decoded. */
  param: string | undefined;
  /** Every `{...}` segment of the path, decoded, in order (`/categories/{name}/{value}` has two). */
  params: string[];
}

const matchTemplate = templateMatcher(PRISM_ENDPOINTS);

/** Matches a path below the base path (e.g. `/vms/list`); undefined when no endpoint serves it. */
export function matchEndpoint(method: string, path: string): EndpointMatch | undefined {
  const match = matchTemplate(method, path);
  return match && { endpoint: match.endpoint, param: match.params[0], params: match.params };
}

/**
 * The `kind` an error about `path` (the full request path) carries: the kind of entity the path addresses, e.g.
 * `cluster` for `/api/nutanix/v3/clusters/…`, also when the simulator serves no such endpoint. Undefined for a path
 * that addresses no entity (outside the v3 base path, or the base path itself): such errors carry no kind.
 */
export function kindOfPath(path: string): string | undefined {
  if (!path.startsWith(`${PRISM_BASE_PATH}/`)) return undefined;
  const [collection = ''] = path.slice(PRISM_BASE_PATH.length + 1).split('/');
  if (!/^[a-z][a-z0-9_]*$/.test(collection)) return undefined;
  // v3 names collections by the plural of the kind: categories -> category, access_control_policies -> ...policy.
  if (collection.endsWith('ies')) return `${collection.slice(0, -3)}y`;
  return collection.endsWith('s') && !collection.endsWith('ss') ? collection.slice(0, -1) : collection;
}
