// POST /groups for `entity_type: storage_container`: how a v3 client finds storage containers. v3 has no storage
// container list of its own; the groups API (`x-internal` in the v3.1 swagger, `groups_get_entities_request` and
// `_response`) is what CAPX v1.7.0 called (`ListStorageContainers` in controllers/helpers.go: the attributes
// `container_name`, `cluster_name` and `cluster`, read as `data[].values[0].values[0]`), and the shape here is the one
// prism-go-client's `GroupsGetEntitiesResponse` decodes. Only storage containers are served, only those attributes,
// and `filter_criteria` only on `container_name` (FIQL, exact and case-sensitive as the list filters): a client asking
// for more is refused with a 422 naming what is supported, rather than answered with something invented.

import { invalidRequest } from './errors.ts';
import type { HttpReply } from './http-io.ts';
import type { Inventory, StorageContainer } from './inventory.ts';
import { listFilter } from './list-call.ts';
import { pageOf } from './paging.ts';
import { validate, type ObjectSchema } from './schema-validation.ts';

const KIND = 'group';
const ENTITY_TYPE = 'storage_container';

const ATTRIBUTES: Readonly<Record<string, (container: StorageContainer) => string>> = {
  container_name: (container) => container.name,
  cluster_name: (container) => container.cluster.name,
  cluster: (container) => container.cluster.uuid,
};

/** `groups_get_entities_request`, the parts the simulator reads; the swagger's other keys are accepted and ignored. */
const requestSchema: ObjectSchema = {
  type: 'object',
  required: ['entity_type'],
  properties: {
    entity_type: { type: 'string', enum: [ENTITY_TYPE] },
    filter_criteria: { type: 'string' },
    group_member_attributes: {
      type: 'array',
      items: { type: 'object', required: ['attribute'], properties: { attribute: { type: 'string', enum: Object.keys(ATTRIBUTES) } } },
    },
    group_member_count: { type: 'integer', minimum: 1 },
    group_member_offset: { type: 'integer', minimum: 0 },
  },
};

interface GroupsRequest {
  entity_type: string;
  filter_criteria?: string;
  group_member_attributes?: { attribute: string }[];
  group_member_count?: number;
  group_member_offset?: number;
}

export function groupStorageContainers(inventory: Inventory, body: unknown): HttpReply {
  const details = validate(requestSchema, body ?? {});
  if (Object.keys(details).length > 0) throw invalidRequest(details, KIND);
  const request = body as GroupsRequest;
  const predicate = listFilter(request.filter_criteria, 'container_name', KIND);
  const matches = inventory.storageContainers.filter((container) => predicate({ name: container.name }));
  const page = pageOf(matches, { offset: request.group_member_offset, length: request.group_member_count });
  const attributes = (request.group_member_attributes ?? []).map(({ attribute }) => attribute);
  const entityResults = page.items.map((container) => ({
    entity_id: container.uuid,
    data: attributes.map((name) => ({
      name,
      values: [{ time: Date.parse(container.cluster.creationTime) * 1000, values: [ATTRIBUTES[name]?.(container) ?? ''] }],
    })),
  }));
  return {
    status: 200,
    json: {
      entity_type: ENTITY_TYPE,
      filtered_group_count: 1,
      filtered_entity_count: page.totalMatches,
      total_group_count: 1,
      total_entity_count: inventory.storageContainers.length,
      group_results: [{ entity_results: entityResults, group_by_column_value: '', group_summaries: {}, total_entity_count: page.totalMatches }],
    },
  };
}
