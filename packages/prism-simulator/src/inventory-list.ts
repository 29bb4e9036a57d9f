// POST /clusters/list, /images/list and /subnets/list: the entities a VM refers to, listed as v3 shows them
// (inventory-view.ts), so that a client can turn the names people use into the UUIDs VM references need. Paging
// and sorting as in POST /vms/list; the filter knows one selector, `name` (exact, case-sensitive, as `vm_name`
// for VMs).

import { API_VERSION, PrismApiError, REQUEST_NOT_PROCESSED, invalidRequest } from './errors.ts';
import { FiqlError, parseNameFilter } from './fiql.ts';
import type { HttpReply } from './http-io.ts';
import type { Inventory } from './inventory.ts';
import { inventoryEntities, type InventoryKind } from './inventory-view.ts';
import { pageOf, sortByName, type SortOrder } from './paging.ts';
import { validate, type ObjectSchema } from './schema-validation.ts';

interface ListInput {
  filter?: string;
  length?: number;
  offset?: number;
  sort_attribute?: string;
  sort_order?: SortOrder;
}

/** `<kind>_list_metadata` of the v3.1 swagger. */
function listSchema(kind: InventoryKind): ObjectSchema {
  return {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: [kind] },
      filter: { type: 'string' },
      length: { type: 'integer', minimum: 1 },
      offset: { type: 'integer', minimum: 0 },
      sort_attribute: { type: 'string' },
      sort_order: { type: 'string', enum: ['ASCENDING', 'DESCENDING'] },
    },
  };
}

export function listInventory(inventory: Inventory, kind: InventoryKind, body: unknown): HttpReply {
  const input = (body ?? {}) as ListInput;
  const details = validate(listSchema(kind), input);
  if (Object.keys(details).length > 0) throw invalidRequest(details, kind);
  let predicate;
  try {
    predicate = parseNameFilter(input.filter, 'name');
  } catch (error) {
    if (!(error instanceof FiqlError)) throw error;
    throw new PrismApiError(400, 'INVALID_REQUEST', REQUEST_NOT_PROCESSED, { kind, details: { filter: [error.message] } });
  }
  const matches = inventoryEntities(inventory, kind).filter((e) => predicate({ name: e.spec.name }));
  const page = pageOf(sortByName(matches, (e) => e.spec.name, input.sort_attribute, input.sort_order), input);
  return {
    status: 200,
    json: {
      api_version: API_VERSION,
      metadata: {
        ...(input.filter === undefined ? {} : { filter: input.filter }),
        kind,
        offset: page.offset,
        length: page.items.length,
        total_matches: page.totalMatches,
      },
      entities: page.items,
    },
  };
}
