// POST /clusters/list, /images/list, /subnets/list and /projects/list: the entities a VM refers to, listed as v3 shows them
// (inventory-view.ts), so that a client can turn the names people use into the UUIDs VM references need. Paging
// and sorting as in POST /vms/list; the filter knows one selector, `name` (exact, case-sensitive, as `vm_name`
// for VMs).

import type { HttpReply } from './http-io.ts';
import type { Inventory } from './inventory.ts';
import { inventoryEntities, type InventoryKind } from './inventory-view.ts';
import { listFilter, listReply, parseListInput } from './list-call.ts';
import { pageOf, sortByName } from './paging.ts';

export function listInventory(inventory: Inventory, kind: InventoryKind, body: unknown): HttpReply {
  const input = parseListInput(body, kind);
  const predicate = listFilter(input.filter, 'name', kind);
  const matches = inventoryEntities(inventory, kind).filter((e) => predicate({ name: e.spec.name }));
  const page = pageOf(sortByName(matches, (e) => e.spec.name, input.sort_attribute, input.sort_order), input);
  return listReply(kind, input, page, (entity) => entity);
}
