// The v4 views of the one inventory the v3 API lists too (inventory.ts): clusters and storage containers
// (clustermgmt), subnets (networking) and images (vmm content), each resource described by a V4InventoryResource in
// its model module. Read only, as nothing in the simulator changes inventory (so no ETag either). A list takes
// `$filter` on the fields its resource names, `$orderby`, `$page` and `$limit` (v4-list.ts); a GET by extId answers the
// entity or a 404. `$select`, `$expand` and `$apply` are refused rather than ignored: CAPX sends none of them, and a
// client that relies on one should learn here that the simulator would have misled it.

import type { HttpReply } from './http-io.ts';
import type { Inventory } from './inventory.ts';
import { V4_CLUSTERS, V4_STORAGE_CONTAINERS } from './v4-cluster-model.ts';
import {
  CLUSTERMGMT_CLUSTERS_PATH,
  CLUSTERMGMT_STORAGE_CONTAINERS_PATH,
  NETWORKING_SUBNETS_PATH,
  VMM_IMAGES_PATH,
  type V4InventoryEndpoint,
  type V4InventoryPath,
} from './v4-endpoints.ts';
import { v4Envelope } from './v4-envelope.ts';
import { V4ApiError, invalidArgument } from './v4-errors.ts';
import { V4_IMAGES } from './v4-image-model.ts';
import { v4ListReply } from './v4-list.ts';
import { parseODataFilter } from './v4-odata.ts';
import { V4_SUBNETS } from './v4-subnet-model.ts';

export interface V4InventoryResource<T> {
  /** The namespace of the models, e.g. `clustermgmt.v4.config`. */
  models: string;
  /** Model names: of one item (`Cluster`), of the list answer and of the get answer. */
  item: string;
  listResponse: string;
  getResponse: string;
  /** The 404 of a GET by an extId nothing has: its error group and code, and what its message calls the entity. */
  notFound: { errorGroup: string; code: string; label: string };
  items: (inventory: Inventory) => readonly T[];
  extIdOf: (item: T) => string;
  /** The fields `$filter` may test, and how to read each (an absent one reads as ''). */
  filter: Readonly<Record<string, (item: T) => string>>;
  /** The fields `$orderby` may name, and a sort key for each. */
  orderBy: Readonly<Record<string, (item: T) => string>>;
  render: (item: T, inventory: Inventory) => Record<string, unknown>;
}

/** A resource with its item type hidden, so that resources of different types share one table. */
interface ServedResource {
  list: (url: URL, inventory: Inventory) => HttpReply;
  get: (extId: string, url: URL, inventory: Inventory) => HttpReply;
  responseType: (call: 'list' | 'get') => string;
}

const UNSUPPORTED_OPTIONS = ['$select', '$expand', '$apply'];

function served<T>(resource: V4InventoryResource<T>): ServedResource {
  const { models, filter } = resource;
  const fields = Object.keys(filter);
  return {
    list: (url, inventory) => {
      const unsupported = UNSUPPORTED_OPTIONS.filter((option) => url.searchParams.has(option));
      if (unsupported.length > 0) throw invalidArgument(`${unsupported.join(', ')} is not supported by the simulator for ${resource.item} lists (it supports $filter, $orderby, $page and $limit).`);
      const predicate = parseODataFilter(url.searchParams.get('$filter') ?? undefined, fields);
      const matches = resource.items(inventory).filter((item) => predicate(Object.fromEntries(fields.map((field) => [field, filter[field]?.(item) ?? '']))));
      return v4ListReply(url, matches, {
        responseType: `${models}.${resource.listResponse}`,
        itemType: `${models}.${resource.item}`,
        orderBy: resource.orderBy,
        render: (item) => resource.render(item, inventory),
      });
    },
    get: (extId, url, inventory) => {
      const found = resource.items(inventory).find((item) => resource.extIdOf(item).toLowerCase() === extId.toLowerCase());
      const { errorGroup, code, label } = resource.notFound;
      if (found === undefined) throw new V4ApiError(404, errorGroup, code, `${label} with extId '${extId}' does not exist.`);
      return { status: 200, json: v4Envelope(`${models}.${resource.getResponse}`, `${models}.${resource.item}`, resource.render(found, inventory), url) };
    },
    responseType: (call) => `${models}.${call === 'list' ? resource.listResponse : resource.getResponse}`,
  };
}

const RESOURCES: Record<V4InventoryPath, ServedResource> = {
  [CLUSTERMGMT_CLUSTERS_PATH]: served(V4_CLUSTERS),
  [CLUSTERMGMT_STORAGE_CONTAINERS_PATH]: served(V4_STORAGE_CONTAINERS),
  [NETWORKING_SUBNETS_PATH]: served(V4_SUBNETS),
  [VMM_IMAGES_PATH]: served(V4_IMAGES),
};

const BY_EXT_ID = '/{extId}';

/** Which resource an endpoint addresses, and whether it lists or gets. */
function resolve(endpoint: V4InventoryEndpoint): { resource: ServedResource; call: 'list' | 'get' } {
  const template = endpoint.slice('GET '.length);
  const call = template.endsWith(BY_EXT_ID) ? 'get' : 'list';
  const path = (call === 'get' ? template.slice(0, -BY_EXT_ID.length) : template) as V4InventoryPath;
  return { resource: RESOURCES[path], call };
}

/** Serves a list or a get of the inventory; `extId` is the path's `{extId}` (unused by a list). */
export function serveV4Inventory(endpoint: V4InventoryEndpoint, extId: string, url: URL, inventory: Inventory): HttpReply {
  const { resource, call } = resolve(endpoint);
  return call === 'get' ? resource.get(extId, url, inventory) : resource.list(url, inventory);
}

/** The `$objectType` of the endpoint's answer, which its errors carry too. */
export function v4InventoryResponseType(endpoint: V4InventoryEndpoint): string {
  const { resource, call } = resolve(endpoint);
  return resource.responseType(call);
}
