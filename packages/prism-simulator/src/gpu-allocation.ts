// Which of a cluster's GPUs (its `gpus` seeds) the VMs on it have taken, for everything that shows or hands out GPUs:
// the v4 GPU profiles (in use, assignable), the v3 hosts' `gpu_list` (status), and a VM create naming a GPU, whose
// task fails when the cluster has no such GPU or none of it is free. A VM takes one of a seed with a `gpu_list` entry
// of the same device_id in a matching mode (passed through for a passthrough seed, VIRTUAL for a vGPU one).

import type { Cluster, GpuSeed } from './inventory.ts';
import type { TaskFailure } from './tasks.ts';
import type { VmRecord } from './vm-store.ts';

export interface GpuAllocation {
  gpu: Required<GpuSeed>;
  /** The VMs holding one, oldest first; at most `gpu.count` of them unless seeds changed under running VMs. */
  allocatedVmUuids: string[];
}

/** Whether a VM's GPU (a v3 `gpu_list` entry) takes one of `gpu`: the same device, passed through or virtual as offered. */
export function takesGpu(entry: unknown, gpu: Required<GpuSeed>): boolean {
  if (typeof entry !== 'object' || entry === null) return false;
  const { device_id: deviceId, mode } = entry as { device_id?: unknown; mode?: unknown };
  return deviceId === gpu.deviceId && (gpu.type === 'VIRTUAL' ? mode === 'VIRTUAL' : mode === 'PASSTHROUGH_GRAPHICS' || mode === 'PASSTHROUGH_COMPUTE');
}

/** A VM's GPUs (v3 `gpu_list`), as it has them or, until its create succeeds, as asked. */
function gpuListOf(vm: VmRecord): unknown[] {
  const list = (vm.applied ?? vm.spec).resources.gpu_list;
  return Array.isArray(list) ? list : [];
}

/** Each GPU seed of `cluster` with the VMs (created ones: a create in flight holds nothing yet) that took one. */
export function gpuAllocations(cluster: Cluster, vms: readonly VmRecord[]): GpuAllocation[] {
  const onCluster = vms.filter((vm) => vm.phase !== 'creating' && (vm.applied ?? vm.spec).cluster_reference.uuid === cluster.uuid);
  return cluster.gpus.map((gpu) => ({ gpu, allocatedVmUuids: onCluster.filter((vm) => gpuListOf(vm).some((entry) => takesGpu(entry, gpu))).map((vm) => vm.uuid) }));
}

/**
 * Why a create asking for `gpuList` on `cluster` must fail, if it must: a GPU the cluster does not have, or one whose
 * devices are all taken. pc.2022.1+ reports such errors as task failures; the real error text is unverified.
 */
export function gpuShortage(gpuList: readonly unknown[], cluster: Cluster, vms: readonly VmRecord[]): TaskFailure | undefined {
  const allocations = gpuAllocations(cluster, vms);
  const wanted = new Map<GpuAllocation, number>();
  for (const entry of gpuList) {
    const allocation = allocations.find((a) => takesGpu(entry, a.gpu));
    const { device_id: deviceId, mode } = entry as { device_id?: unknown; mode?: unknown };
    const named = `GPU ${String(mode)} device ${String(deviceId)}`;
    if (allocation === undefined) {
      return { errorCode: 'ENTITY_NOT_FOUND', errorDetail: `ENTITY_NOT_FOUND: ${named} is not in the inventory of cluster ${cluster.name} (${cluster.uuid})` };
    }
    const count = (wanted.get(allocation) ?? 0) + 1;
    wanted.set(allocation, count);
    if (allocation.allocatedVmUuids.length + count > allocation.gpu.count) {
      return {
        errorCode: 'INVALID_ARGUMENT',
        errorDetail: `INVALID_ARGUMENT: no free ${named} (${allocation.gpu.deviceName}) on cluster ${cluster.name} (${cluster.uuid}): ${String(allocation.gpu.count)} in all, ${String(allocation.allocatedVmUuids.length)} taken`,
      };
    }
  }
  return undefined;
}
