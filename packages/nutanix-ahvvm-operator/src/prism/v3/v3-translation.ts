import { distinctAddresses, type DesiredDisk, type DesiredNic, type DesiredVm, type ObservedVm } from '../../vm/vm-model.ts';
import type { VmTask } from '../../vm/vm-task.ts';
import type { PrismDisk, PrismNic, PrismTask, PrismVm, PrismVmIntent } from './prism-types.ts';

/**
 * The v3 JSON of VMs and tasks as the operator's model, and the model as v3 JSON. v3 shows a VM twice: `spec`, the
 * latest accepted change, and `status`, what was applied; the model takes sizes, devices and names from `spec` (what
 * the operator compares its own changes with) and the power state and addresses from `status`, falling back to `spec`.
 */

const MIB = 1024 * 1024;

/** Disks as opposed to CD-ROMs (a disk without device_properties is a DISK, Prism's default). */
export function isDataDisk(disk: PrismDisk): boolean {
  return (disk.device_properties?.device_type ?? 'DISK') === 'DISK';
}

/** A disk's size in MiB, from `disk_size_mib` or, failing that, `disk_size_bytes`. */
export function diskSizeMib(disk: PrismDisk): number | undefined {
  if (disk.disk_size_mib !== undefined) return disk.disk_size_mib;
  return disk.disk_size_bytes === undefined ? undefined : Math.ceil(disk.disk_size_bytes / MIB);
}

/** The power state as Prism reports it: status first (what is applied), then spec. */
export function reportedPowerState(vm: PrismVm): string {
  return vm.status.resources?.power_state ?? vm.spec.resources.power_state ?? 'UNKNOWN';
}

export function observedVmFromV3(vm: PrismVm): ObservedVm {
  const resources = vm.spec.resources;
  const addressed = vm.status.resources?.nic_list ?? resources.nic_list ?? [];
  const messages = vm.status.message_list;
  return {
    uuid: vm.metadata.uuid,
    name: vm.spec.name,
    description: vm.spec.description,
    clusterUuid: vm.spec.cluster_reference?.uuid,
    numSockets: resources.num_sockets,
    numVcpusPerSocket: resources.num_vcpus_per_socket,
    memoryMib: resources.memory_size_mib,
    powerState: reportedPowerState(vm),
    bootType: resources.boot_config?.boot_type,
    categories: vm.metadata.categories ?? {},
    disks: (resources.disk_list ?? []).filter(isDataDisk).map((disk) => ({
      id: disk.uuid,
      imageUuid: disk.data_source_reference?.uuid,
      sizeMib: diskSizeMib(disk),
      storageContainerUuid: disk.storage_config?.storage_container_reference?.uuid,
    })),
    nics: (resources.nic_list ?? []).map((nic) => ({ id: nic.uuid, subnetUuid: nic.subnet_reference?.uuid })),
    ipAddresses: distinctAddresses(addressed.flatMap((nic) => (nic.ip_endpoint_list ?? []).map((endpoint) => endpoint.ip))),
    state: vm.status.state,
    ...(messages === undefined ? {} : { stateMessages: messages.map((m) => m.message ?? m.reason ?? '') }),
    specVersion: vm.metadata.spec_version,
  };
}

export function v3Disk(disk: DesiredDisk): PrismDisk {
  return {
    ...(disk.imageUuid === undefined ? {} : { data_source_reference: { kind: 'image', uuid: disk.imageUuid } }),
    ...(disk.sizeMib === undefined ? {} : { disk_size_mib: disk.sizeMib }),
    // v3.1 swagger `disk_storage_config`; CAPX v1.7.0 CreateDataDiskList sends the same reference.
    ...(disk.storageContainerUuid === undefined ? {} : { storage_config: { storage_container_reference: { kind: 'storage_container', uuid: disk.storageContainerUuid } } }),
  };
}

export function v3Nic(nic: DesiredNic): PrismNic {
  return { subnet_reference: { kind: 'subnet', uuid: nic.subnetUuid }, is_connected: true };
}

/** The body of POST /vms for the desired VM (its UUID, the idempotence UUID, is added by the client). */
export function v3CreateBody(desired: DesiredVm): PrismVmIntent {
  return {
    metadata: {
      kind: 'vm',
      ...(desired.categories === undefined ? {} : { categories: { ...desired.categories } }),
      // CAPX v1.7.0 (v3) puts the VM in its project with metadata.project_reference on the create.
      ...(desired.projectUuid === undefined ? {} : { project_reference: { kind: 'project', uuid: desired.projectUuid } }),
    },
    spec: {
      name: desired.name,
      description: desired.description,
      cluster_reference: { kind: 'cluster', uuid: desired.clusterUuid },
      resources: {
        num_sockets: desired.numSockets,
        num_vcpus_per_socket: desired.numVcpusPerSocket,
        memory_size_mib: desired.memoryMib,
        ...(desired.powerState === undefined ? {} : { power_state: desired.powerState }),
        ...(desired.bootType === undefined ? {} : { boot_config: { boot_type: desired.bootType } }),
        ...(desired.disks === undefined ? {} : { disk_list: desired.disks.map(v3Disk) }),
        ...(desired.nics === undefined ? {} : { nic_list: desired.nics.map(v3Nic) }),
        // CAPX v1.7.0 GetGPU: device_id, mode and vendor of the host's free GPU.
        ...(desired.gpus === undefined ? {} : { gpu_list: desired.gpus.map((gpu) => ({ device_id: gpu.deviceId, mode: gpu.mode, vendor: gpu.vendor })) }),
        ...(desired.cloudInitUserData === undefined ? {} : { guest_customization: { cloud_init: { user_data: desired.cloudInitUserData } } }),
      },
    },
  };
}

export function vmTaskFromV3(task: PrismTask): VmTask {
  const vmUuid = task.entity_reference_list?.find((entity) => entity.kind === 'vm')?.uuid;
  return {
    uuid: task.uuid,
    status: task.status,
    ...(task.error_code === undefined ? {} : { errorCode: task.error_code }),
    ...(task.error_detail === undefined ? {} : { errorDetail: task.error_detail }),
    ...(vmUuid === undefined ? {} : { vmUuid }),
  };
}
