// What the official Go client (prism-go-client v3, as CAPX v1.7 runs it) makes of a reply, for the contract tests:
//
// - `goError` is prism-go-client's `CheckResponse`: any 2xx is success; 401 is "invalid Nutanix credentials"; any
//   other JSON body is an error only when its `state` is "ERROR", and the error's text is the pretty-printed
//   `ErrorResponse` (api_version, code, kind, message_list, state). Callers such as CAPX then test that text with
//   `strings.Contains(err, "ENTITY_NOT_FOUND")` or `"CATEGORY_NAME_VALUE_MISMATCH"`.
// - `goDecodeProblems` checks a body against the Go struct it is decoded into: `encoding/json` fails on a JSON type
//   that does not fit the field (a string where an int64 is declared, a number where a string is), and
//   `*time.Time` fields need RFC 3339 strings. Unknown fields are ignored, as Go ignores them.

import type { Reply } from './prism-client.ts';

/** The error text prism-go-client returns for `reply`, or undefined when it treats the reply as a success. */
export function goError(reply: Reply): string | undefined {
  if (reply.status >= 200 && reply.status <= 299) return undefined;
  if (reply.status === 401) return 'invalid Nutanix credentials';
  if (reply.text.length === 0) return undefined;
  if (typeof reply.json !== 'object' || reply.json === null) return `unmarshalling error response for response body ${reply.text}`;
  const body = reply.json as Record<string, unknown>;
  if (typeof body.status === 'string') return undefined;
  if (!('status' in body) && !('state' in body) && 'entities' in body) return undefined;
  const source = typeof body.status === 'object' && body.status !== null ? (body.status as Record<string, unknown>) : 'state' in body ? body : {};
  if (body.message_info !== undefined) return `error: ${JSON.stringify(body.message_info)}`;
  if (typeof body.message === 'string') return `error: ${body.message}`;
  if (source.state !== 'ERROR') return undefined;
  const messages = Array.isArray(source.message_list) ? (source.message_list as Record<string, unknown>[]) : [];
  const errorResponse = {
    ...(source.api_version === undefined ? {} : { api_version: source.api_version }),
    ...(source.code === undefined ? {} : { code: source.code }),
    ...(source.kind === undefined ? {} : { kind: source.kind }),
    message_list: messages.map((m) => ({ ...(m.details === undefined ? {} : { details: m.details }), message: m.message, reason: m.reason })),
    state: source.state,
  };
  return `status: ${reply.status}, error-response: ${JSON.stringify(errorResponse, null, 2)}`;
}

/** A Go type, as far as `encoding/json` cares. Every field is a pointer, a map or a slice, so `null` always fits. */
export type GoType = 'string' | 'int' | 'bool' | 'time' | 'any' | { struct: Readonly<Record<string, GoType>> } | { slice: GoType } | { map: GoType };

export const goStruct = (fields: Readonly<Record<string, GoType>>): GoType => ({ struct: fields });
export const goSlice = (items: GoType): GoType => ({ slice: items });
export const goMap = (values: GoType): GoType => ({ map: values });

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Where `value` would make `json.Unmarshal` into `type` fail; empty when it decodes. */
export function goDecodeProblems(value: unknown, type: GoType, path = '$'): string[] {
  if (value === null || type === 'any') return [];
  if (type === 'string') return typeof value === 'string' ? [] : [`${path}: ${JSON.stringify(value)} is not a string`];
  if (type === 'bool') return typeof value === 'boolean' ? [] : [`${path}: ${JSON.stringify(value)} is not a bool`];
  if (type === 'int') return typeof value === 'number' && Number.isInteger(value) ? [] : [`${path}: ${JSON.stringify(value)} is not an int64`];
  if (type === 'time') return typeof value === 'string' && RFC3339.test(value) ? [] : [`${path}: ${JSON.stringify(value)} is not an RFC 3339 time`];
  if ('slice' in type) {
    if (!Array.isArray(value)) return [`${path}: ${JSON.stringify(value)} is not an array`];
    return value.flatMap((item: unknown, i) => goDecodeProblems(item, type.slice, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: ${JSON.stringify(value)} is not an object`];
  const entries = Object.entries(value as Record<string, unknown>);
  if ('map' in type) return entries.flatMap(([key, item]) => goDecodeProblems(item, type.map, `${path}.${key}`));
  return entries.flatMap(([key, item]) => {
    const field = type.struct[key];
    return field === undefined ? [] : goDecodeProblems(item, field, `${path}.${key}`);
  });
}

// The prism-go-client v3 structs the machine-creation sequence decodes (v3/v3_structs.go, v3/models), reduced to
// the fields whose JSON type could go wrong.

const reference = goStruct({ kind: 'string', name: 'string', uuid: 'string' });

export const GO_METADATA = goStruct({
  last_update_time: 'time',
  kind: 'string',
  uuid: 'string',
  project_reference: reference,
  creation_time: 'time',
  spec_version: 'int',
  spec_hash: 'string',
  owner_reference: reference,
  categories: goMap('string'),
  name: 'string',
  categories_mapping: goMap(goSlice('string')),
  entity_version: 'string',
  use_categories_mapping: 'bool',
});

export const GO_CATEGORY_KEY_STATUS = goStruct({ api_version: 'string', description: 'string', name: 'string', system_defined: 'bool' });
export const GO_CATEGORY_VALUE_STATUS = goStruct({ api_version: 'string', description: 'string', name: 'string', system_defined: 'bool', value: 'string' });
const categoryListMetadata = goStruct({ filter: 'string', kind: 'string', length: 'int', offset: 'int', sort_attribute: 'string', sort_order: 'string', total_matches: 'int' });
export const GO_CATEGORY_KEY_LIST = goStruct({ api_version: 'string', entities: goSlice(GO_CATEGORY_KEY_STATUS), metadata: categoryListMetadata });
export const GO_CATEGORY_VALUE_LIST = goStruct({ api_version: 'string', entities: goSlice(GO_CATEGORY_VALUE_STATUS), metadata: categoryListMetadata });

const software = goMap(goStruct({ software_type: 'string', status: 'string', version: 'string' }));
const clusterConfigSpec = { operation_mode: 'string', redundancy_factor: 'int', software_map: software, timezone: 'string', enabled_feature_list: goSlice('string') } as const;
export const GO_CLUSTER = goStruct({
  api_version: 'string',
  metadata: GO_METADATA,
  spec: goStruct({ name: 'string', resources: goStruct({ config: goStruct(clusterConfigSpec), runtime_status_list: goSlice('string') }) }),
  status: goStruct({
    name: 'string',
    state: 'string',
    message_list: goSlice('any'),
    resources: goStruct({
      config: goStruct({
        ...clusterConfigSpec,
        build: goStruct({ build_type: 'string', commit_id: 'string', full_version: 'string', is_long_term_support: 'bool', short_commit_id: 'string', version: 'string' }),
        cluster_arch: 'string',
        is_available: 'bool',
        service_list: goSlice('string'),
      }),
      nodes: goStruct({ hypervisor_server_list: goSlice(goStruct({ ip: 'string', type: 'string', version: 'string' })) }),
      runtime_status_list: goSlice('string'),
    }),
  }),
});

export const GO_SUBNET = goStruct({
  api_version: 'string',
  metadata: GO_METADATA,
  spec: goStruct({ name: 'string', cluster_reference: reference, resources: goStruct({ subnet_type: 'string', vlan_id: 'int', ip_config: goStruct({ subnet_ip: 'string', prefix_length: 'int' }) }) }),
  status: goStruct({ name: 'string', state: 'string', cluster_reference: reference, resources: goStruct({ subnet_type: 'string', vlan_id: 'int' }) }),
});

export const GO_IMAGE = goStruct({
  api_version: 'string',
  metadata: GO_METADATA,
  spec: goStruct({ name: 'string', description: 'string', resources: goStruct({ image_type: 'string', architecture: 'string', source_uri: 'string' }) }),
  status: goStruct({ name: 'string', state: 'string', resources: goStruct({ image_type: 'string', architecture: 'string', size_bytes: 'int', retrieval_uri_list: goSlice('string') }) }),
});

export const GO_VM = goStruct({
  api_version: 'string',
  metadata: GO_METADATA,
  spec: goStruct({ name: 'string', description: 'string', cluster_reference: reference, resources: goStruct({ num_sockets: 'int', num_vcpus_per_socket: 'int', memory_size_mib: 'int', power_state: 'string' }) }),
  status: goStruct({ name: 'string', state: 'string', cluster_reference: reference, execution_context: goStruct({ task_uuid: 'any' }) }),
});

export const GO_TASK = goStruct({
  status: 'string',
  last_update_time: 'time',
  logical_timestamp: 'int',
  entity_reference_list: goSlice(reference),
  start_time: 'time',
  creation_time: 'time',
  cluster_reference: reference,
  progress_message: 'string',
  operation_type: 'string',
  percentage_complete: 'int',
  api_version: 'string',
  uuid: 'string',
  error_detail: 'string',
});
