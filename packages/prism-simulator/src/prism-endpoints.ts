// The Prism Central v3 endpoints the simulator serves, named `METHOD /path-template`. The names are what
// fault rules match on and what the request log counts by.

export const PRISM_BASE_PATH = '/api/nutanix/v3';

export const PRISM_ENDPOINTS = [
  'POST /vms',
  'GET /vms/{uuid}',
  'PUT /vms/{uuid}',
  'DELETE /vms/{uuid}',
  'POST /vms/list',
  'POST /clusters/list',
  'POST /images/list',
  'POST /subnets/list',
  'GET /tasks/{uuid}',
  'POST /idempotence_identifiers',
  'GET /idempotence_identifiers/{client_identifier}',
  'DELETE /idempotence_identifiers/{client_identifier}',
  'GET /users/me',
] as const;

export type PrismEndpoint = (typeof PRISM_ENDPOINTS)[number];

export interface EndpointMatch {
  endpoint: PrismEndpoint;
  /** The `{...}` segment of the path, decoded. */
  param: string | undefined;
}

const TEMPLATES = PRISM_ENDPOINTS.map((endpoint) => {
  const [method = '', template = ''] = endpoint.split(' ');
  const pattern = new RegExp(`^${template.replace(/\{[a-z_]+\}/, '([^/]+)')}/?$`);
  return { endpoint, method, pattern };
});

/** Matches a path below the base path (e.g. `/vms/list`); undefined when no endpoint serves it. */
export function matchEndpoint(method: string, path: string): EndpointMatch | undefined {
  for (const { endpoint, method: expected, pattern } of TEMPLATES) {
    if (expected !== method) continue;
    const match = pattern.exec(path);
    if (!match) continue;
    const raw = match[1];
    try {
      return { endpoint, param: raw === undefined ? undefined : decodeURIComponent(raw) };
    } catch {
      return { endpoint, param: raw };
    }
  }
  return undefined;
}
