// The GPU profiles of a cluster as clustermgmt v4.2 lists them (clustermgmt-go-client/v4 v4.2.2,
// `GET /clustermgmt/v4.2/config/clusters/{clusterExtId}/physical-gpu-profiles` and `…/virtual-gpu-profiles`, models
// `clustermgmt.v4.config.PhysicalGpuProfile` / `VirtualGpuProfile` around a `PhysicalGpuConfig` / `VirtualGpuConfig`).
// The profiles are the `gpus` seeds of the cluster in the one inventory (inventory.ts): passthrough seeds are the
// physical profiles, VIRTUAL seeds the virtual ones. A profile is in use, and lists the VMs using it, when the VMs on
// the cluster whose `gpu_list` names its deviceId in a matching mode have taken all `count` of it. CAPX (helpers.go
// GetGPUsForPE) filters on `physicalGpuConfig/deviceId eq <n>` or `…/deviceName eq '<name>'` (and the same on
// `virtualGpuConfig/`), skips profiles in use, and dereferences `deviceId`, `deviceName` and `vendorName`, so every
// profile carries them. The Prism Central's own cluster entity has no GPUs (an empty list); an unknown cluster is a 404.

import { gpuAllocations } from './gpu-allocation.ts';
import type { GpuSeed, Inventory } from './inventory.ts';
import { V4ApiError } from './v4-errors.ts';
import { v4Object } from './v4-envelope.ts';
import type { HttpReply } from './http-io.ts';
import { v4ListReply } from './v4-list.ts';
import { parseODataFilter } from './v4-odata.ts';
import type { VmRecord } from './vm-store.ts';

const MODELS = 'clustermgmt.v4.config';

export type GpuProfileKind = 'physical' | 'virtual';

interface Profile {
  clusterUuid: string;
  gpu: Required<GpuSeed>;
  allocatedVmExtIds: string[];
}

const SHAPES = {
  physical: { item: 'PhysicalGpuProfile', config: 'PhysicalGpuConfig', field: 'physicalGpuConfig', listResponse: 'ListPhysicalGpuProfilesApiResponse' },
  virtual: { item: 'VirtualGpuProfile', config: 'VirtualGpuConfig', field: 'virtualGpuConfig', listResponse: 'ListVirtualGpuProfilesApiResponse' },
} as const;

/** The `$objectType` of a GPU profile list answer, which its errors carry too. */
export function gpuProfilesResponseType(kind: GpuProfileKind): string {
  return `${MODELS}.${SHAPES[kind].listResponse}`;
}

function profilesOf(kind: GpuProfileKind, clusterUuid: string, inventory: Inventory, vms: readonly VmRecord[]): Profile[] {
  const cluster = inventory.clusters.find((c) => c.uuid.toLowerCase() === clusterUuid.toLowerCase());
  if (cluster === undefined) {
    if (inventory.isPrismCentral(clusterUuid)) return [];
    throw new V4ApiError(404, 'CLUSTER_NOT_FOUND', 'CLU-10404', `Cluster with extId '${clusterUuid}' does not exist.`);
  }
  return gpuAllocations(cluster, vms)
    .filter(({ gpu }) => (gpu.type === 'VIRTUAL') === (kind === 'virtual'))
    .map(({ gpu, allocatedVmUuids }) => ({ clusterUuid: cluster.uuid, gpu, allocatedVmExtIds: allocatedVmUuids }));
}

function render(kind: GpuProfileKind, { gpu, allocatedVmExtIds }: Profile): Record<string, unknown> {
  const shape = SHAPES[kind];
  const inUse = allocatedVmExtIds.length >= gpu.count;
  const config = v4Object(`${MODELS}.${shape.config}`, {
    type: gpu.type,
    deviceId: gpu.deviceId,
    deviceName: gpu.deviceName,
    vendorName: gpu.vendorName,
    isInUse: inUse,
    assignable: Math.max(0, gpu.count - allocatedVmExtIds.length),
    frameBufferSizeBytes: gpu.frameBufferSizeBytes,
    numaNode: '0',
    ...(kind === 'physical' ? { mode: allocatedVmExtIds.length === 0 ? 'UNUSED' : 'USED_FOR_PASSTHROUGH' } : { fraction: 1, maxInstancesPerVm: 1 }),
  });
  return v4Object(`${MODELS}.${shape.item}`, { [shape.field]: config, ...(allocatedVmExtIds.length > 0 ? { allocatedVmExtIds } : {}) });
}

/** Serves `GET …/clusters/{clusterExtId}/<kind>-gpu-profiles`, with `$filter` on the config's fields, `$page` and `$limit`. */
export function serveGpuProfiles(kind: GpuProfileKind, clusterUuid: string, url: URL, inventory: Inventory, vms: readonly VmRecord[]): HttpReply {
  const { field, item, listResponse } = SHAPES[kind];
  const fields = ['deviceId', 'deviceName', 'vendorName', 'type', 'isInUse'].map((name) => `${field}/${name}`);
  const predicate = parseODataFilter(url.searchParams.get('$filter') ?? undefined, fields);
  const matches = profilesOf(kind, clusterUuid, inventory, vms).filter((profile) => predicate({
    [`${field}/deviceId`]: String(profile.gpu.deviceId),
    [`${field}/deviceName`]: profile.gpu.deviceName,
    [`${field}/vendorName`]: profile.gpu.vendorName,
    [`${field}/type`]: profile.gpu.type,
    [`${field}/isInUse`]: String(profile.allocatedVmExtIds.length >= profile.gpu.count),
  }));
  return v4ListReply(url, matches, {
    responseType: `${MODELS}.${listResponse}`,
    itemType: `${MODELS}.${item}`,
    orderBy: { [`${field}/deviceName`]: (profile) => profile.gpu.deviceName },
    render: (profile) => render(kind, profile),
  });
}
