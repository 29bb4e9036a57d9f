// POST /hosts/list: one AHV host per Prism Element cluster, carrying the cluster's GPUs in `status.resources.gpu_list`,
// which is where CAPX v1.7.0 (controllers/helpers.go `GetGPUsForPE`, through prism-go-client's `ListAllHost`) finds
// a GPU for a NutanixMachine on v3: the hosts whose `status.cluster_reference.uuid` is the VM's cluster, their
// entries with `status` "UNUSED", matched by `device_id` or `name`, whose `device_id`, `mode` and `vendor` it copies
// into the VM's `gpu_list`. prism-go-client notes that this list does not page ("returns all hosts"), so neither does
// this. One entry per device (passthrough) or vGPU instance (VIRTUAL); `vendor` is the VM API's NVIDIA/INTEL/AMD,
// since CAPX sends it on unchanged, and a taken entry says "USED" (the real value is unverified; CAPX tests for UNUSED).

import { gpuAllocations } from './gpu-allocation.ts';
import type { HttpReply } from './http-io.ts';
import type { Cluster, GpuVendorName, Inventory } from './inventory.ts';
import { listReply, parseListInput } from './list-call.ts';
import { ZERO_SPEC_HASH } from './vm-view.ts';
import type { VmRecord } from './vm-store.ts';

const VM_API_VENDORS: Record<GpuVendorName, string> = { kNvidia: 'NVIDIA', kIntel: 'INTEL', kAmd: 'AMD' };

function gpuList(cluster: Cluster, vms: readonly VmRecord[]): Record<string, unknown>[] {
  return gpuAllocations(cluster, vms).flatMap(({ gpu, allocatedVmUuids }) =>
    Array.from({ length: gpu.count }, (_, index) => {
      const holder = allocatedVmUuids[index];
      return {
        status: holder === undefined ? 'UNUSED' : 'USED',
        vendor: VM_API_VENDORS[gpu.vendorName],
        device_id: gpu.deviceId,
        name: gpu.deviceName,
        mode: gpu.type,
        assignable: holder === undefined,
        index,
        frame_buffer_size_mib: Math.floor(gpu.frameBufferSizeBytes / (1024 * 1024)),
        ...(holder === undefined ? {} : { consumer_reference: { kind: 'vm', uuid: holder } }),
      };
    }));
}

function hostEntity(cluster: Cluster, vms: readonly VmRecord[]): Record<string, unknown> {
  const name = `${cluster.name}-host-1`;
  return {
    metadata: { kind: 'host', uuid: cluster.hostUuid, creation_time: cluster.creationTime, last_update_time: cluster.creationTime, spec_version: 0, spec_hash: ZERO_SPEC_HASH, categories: {}, categories_mapping: {} },
    spec: { name, resources: {} },
    status: {
      name,
      state: 'COMPLETE',
      cluster_reference: { kind: 'cluster', uuid: cluster.uuid, name: cluster.name },
      resources: { host_type: 'HYPER_CONVERGED', hypervisor: { hypervisor_full_name: 'AHV' }, gpu_list: gpuList(cluster, vms) },
    },
  };
}

export function listHosts(inventory: Inventory, vms: readonly VmRecord[], body: unknown): HttpReply {
  const input = parseListInput(body, 'host');
  const hosts = inventory.clusters.map((cluster) => hostEntity(cluster, vms));
  return listReply('host', input, { items: hosts, offset: 0, totalMatches: hosts.length }, (host) => host);
}
