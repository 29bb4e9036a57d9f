// The Prism Central v4 endpoints the simulator serves, named `METHOD /full/path-template` (v4 namespaces live under
// different roots, so the names carry the whole path). Paths and methods are those of Nutanix's v4.2 SDKs
// (vmm-go-client/v4 api/vm_api.go and api/images_api.go, prism-go-client/v4 api/tasks_api.go and
// api/categories_api.go, clustermgmt-go-client/v4 api/clusters_api.go (with the GPU profiles) and api/storage_containers_api.go,
// networking-go-client/v4 api/subnets_api.go, client/api_client.go).

import { templateMatcher } from './endpoint-templates.ts';

export const VMM_VMS_PATH = '/api/vmm/v4.2/ahv/config/vms';
export const PRISM_TASKS_PATH = '/api/prism/v4.2/config/tasks';
export const PRISM_CATEGORIES_PATH = '/api/prism/v4.2/config/categories';
export const CLUSTERMGMT_CLUSTERS_PATH = '/api/clustermgmt/v4.2/config/clusters';
export const CLUSTERMGMT_STORAGE_CONTAINERS_PATH = '/api/clustermgmt/v4.2/config/storage-containers';
export const NETWORKING_SUBNETS_PATH = '/api/networking/v4.2/config/subnets';
export const VMM_IMAGES_PATH = '/api/vmm/v4.2/content/images';

/** The inventory CAPX resolves names and UUIDs in, read only: each path is listed, and `{extId}` below it got. */
export const V4_INVENTORY_PATHS = [CLUSTERMGMT_CLUSTERS_PATH, CLUSTERMGMT_STORAGE_CONTAINERS_PATH, NETWORKING_SUBNETS_PATH, VMM_IMAGES_PATH] as const;
export type V4InventoryPath = (typeof V4_INVENTORY_PATHS)[number];

const V4_INVENTORY_ENDPOINTS = [
  `GET ${CLUSTERMGMT_CLUSTERS_PATH}`,
  `GET ${CLUSTERMGMT_CLUSTERS_PATH}/{extId}`,
  `GET ${CLUSTERMGMT_STORAGE_CONTAINERS_PATH}`,
  `GET ${CLUSTERMGMT_STORAGE_CONTAINERS_PATH}/{extId}`,
  `GET ${NETWORKING_SUBNETS_PATH}`,
  `GET ${NETWORKING_SUBNETS_PATH}/{extId}`,
  `GET ${VMM_IMAGES_PATH}`,
  `GET ${VMM_IMAGES_PATH}/{extId}`,
] as const;
export type V4InventoryEndpoint = (typeof V4_INVENTORY_ENDPOINTS)[number];

export function isV4InventoryEndpoint(endpoint: V4Endpoint): endpoint is V4InventoryEndpoint {
  return (V4_INVENTORY_ENDPOINTS as readonly string[]).includes(endpoint);
}

/** A cluster's GPU profiles (clustermgmt-go-client/v4 api/clusters_api.go ListPhysicalGpuProfiles, ListVirtualGpuProfiles). */
export const CLUSTERMGMT_PHYSICAL_GPU_PROFILES = `GET ${CLUSTERMGMT_CLUSTERS_PATH}/{clusterExtId}/physical-gpu-profiles` as const;
export const CLUSTERMGMT_VIRTUAL_GPU_PROFILES = `GET ${CLUSTERMGMT_CLUSTERS_PATH}/{clusterExtId}/virtual-gpu-profiles` as const;

/** Power actions the simulator carries out; each is `POST …/vms/{extId}/$actions/<action>` with no body. */
export const V4_POWER_ACTIONS = ['power-on', 'power-off', 'power-cycle', 'reset'] as const;
export type V4PowerAction = (typeof V4_POWER_ACTIONS)[number];

export const V4_ENDPOINTS = [
  'OPTIONS /api/{namespace}/unversioned/info',
  `POST ${VMM_VMS_PATH}`,
  `GET ${VMM_VMS_PATH}`,
  `GET ${VMM_VMS_PATH}/{extId}`,
  `PUT ${VMM_VMS_PATH}/{extId}`,
  `DELETE ${VMM_VMS_PATH}/{extId}`,
  `POST ${VMM_VMS_PATH}/{extId}/$actions/power-on`,
  `POST ${VMM_VMS_PATH}/{extId}/$actions/power-off`,
  `POST ${VMM_VMS_PATH}/{extId}/$actions/power-cycle`,
  `POST ${VMM_VMS_PATH}/{extId}/$actions/reset`,
  `POST ${VMM_VMS_PATH}/{extId}/$actions/add-custom-attributes`,
  `POST ${VMM_VMS_PATH}/{extId}/$actions/remove-custom-attributes`,
  `POST ${VMM_VMS_PATH}/{vmExtId}/disks`,
  `PUT ${VMM_VMS_PATH}/{vmExtId}/disks/{extId}`,
  `DELETE ${VMM_VMS_PATH}/{vmExtId}/disks/{extId}`,
  `POST ${VMM_VMS_PATH}/{vmExtId}/nics`,
  `PUT ${VMM_VMS_PATH}/{vmExtId}/nics/{extId}`,
  `DELETE ${VMM_VMS_PATH}/{vmExtId}/nics/{extId}`,
  `GET ${PRISM_TASKS_PATH}`,
  `GET ${PRISM_TASKS_PATH}/{extId}`,
  `GET ${PRISM_CATEGORIES_PATH}`,
  `GET ${PRISM_CATEGORIES_PATH}/{extId}`,
  `POST ${PRISM_CATEGORIES_PATH}`,
  `DELETE ${PRISM_CATEGORIES_PATH}/{extId}`,
  ...V4_INVENTORY_ENDPOINTS,
  CLUSTERMGMT_PHYSICAL_GPU_PROFILES,
  CLUSTERMGMT_VIRTUAL_GPU_PROFILES,
] as const;

export type V4Endpoint = (typeof V4_ENDPOINTS)[number];

export interface V4EndpointMatch {
  endpoint: V4Endpoint;
  /** The first `{...}` segment of the path, decoded (the namespace for the version probe, a VM's extId). */
  param: string;
  /** The second one, for a VM's disk or NIC: its extId. */
  childParam: string;
}

const matchTemplate = templateMatcher(V4_ENDPOINTS);

/** Whether `path` is one a v4 client addresses (so that errors about it take the v4 shape). */
export function isV4Path(path: string): boolean {
  return /^\/api\/[a-z]+\/(v4\.\d+|unversioned)(\/|$)/.test(path);
}

/** The v4 namespace a path belongs to (`vmm`, `prism`, …), which names the error model its errors use. */
export function v4NamespaceOf(path: string): string {
  return /^\/api\/([a-z]+)\//.exec(path)?.[1] ?? 'vmm';
}

export function matchV4Endpoint(method: string, path: string): V4EndpointMatch | undefined {
  const match = matchTemplate(method, path);
  return match && { endpoint: match.endpoint, param: match.params[0] ?? '', childParam: match.params[1] ?? '' };
}
