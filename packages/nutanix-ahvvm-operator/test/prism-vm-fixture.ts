// VMs shaped like the recorded pc.2024.3 GET, for unit tests of the pure VM logic (as the operator's model, read
// through the v3 translation) and of the v3 PUT bodies (as v3 JSON).

import type { AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import { resolveAhvVmSpec } from '../src/api/resolved-ahvvm-spec.ts';
import { desiredVmSpec, type AhvVmIdentity, type DesiredVmContext } from '../src/desired/desired-vm.ts';
import type { PrismDisk, PrismNic, PrismVm } from '../src/prism/v3/prism-types.ts';
import { observedVmFromV3 } from '../src/prism/v3/v3-translation.ts';
import type { DesiredVm, ObservedVm } from '../src/vm/vm-model.ts';

export const OWNER_UID = '92cf13c0-c68f-4ef8-8d18-ade4aac450df';
export const CLUSTER_UUID = '00061f7f-1d2c-4b6e-9a31-7c2e5d4f6a01';
export const OTHER_CLUSTER_UUID = '00061f7f-1d2c-4b6e-9a31-7c2e5d4f6a02';
export const IMAGE_UUID = '70cfd137-9c3d-4f0a-8d6e-2a5b1c4d7e01';
export const OTHER_IMAGE_UUID = '70cfd137-9c3d-4f0a-8d6e-2a5b1c4d7e02';
export const SUBNET_UUID = 'b2e46975-0b1d-4c3e-8f5a-6b7c8d9e0f01';
export const OTHER_SUBNET_UUID = 'b2e46975-0b1d-4c3e-8f5a-6b7c8d9e0f02';
export const STORAGE_CONTAINER_UUID = '5c0e7a10-0000-4000-8000-000000000001';
export const PROJECT_UUID = '9a1b2c3d-0000-4000-8000-00000000000a';

/** An AhvVm with `spec` as a reconcile sees it, its defaults applied. */
export function avm(spec: AhvVmSpec = {}, name = 'ahvvm-from-operator'): AhvVmIdentity {
  return { metadata: { name, uid: OWNER_UID }, spec: resolveAhvVmSpec(spec) };
}

/** Names the tests' inventory knows: one of each, and a duplicated image name. */
export const CONTEXT: DesiredVmContext = {
  defaultCluster: { uuid: CLUSTER_UUID, name: 'ncn-dev-sandbox' },
  resolveName: (kind, name) => {
    const inventory: Record<string, string[]> = {
      'cluster/ncn-dev-sandbox': [CLUSTER_UUID],
      'cluster/other': [OTHER_CLUSTER_UUID],
      'image/ubuntu': [IMAGE_UUID],
      'image/twice': [IMAGE_UUID, OTHER_IMAGE_UUID],
      'subnet/vlan173': [SUBNET_UUID],
      'storage_container/fast': [STORAGE_CONTAINER_UUID],
      'project/team-a': [PROJECT_UUID],
      // Newest first, as the name cache answers an image lookup.
      'image_lookup/^ubuntu-22.04-': [OTHER_IMAGE_UUID, IMAGE_UUID],
    };
    return inventory[`${kind}/${name}`] ?? [];
  },
};

/** An AhvVm spec with every optional field, names and a UUID in capitals to resolve. */
export const EVERY_FIELD: AhvVmSpec = {
  power_state: 'PoweredOn',
  description: 'web tier',
  categories: { Environment: 'Production' },
  cluster: { name: 'other' },
  disks: [{ image: { name: 'ubuntu' }, size_mib: 20480 }, { size_mib: 1024 }],
  nics: [{ subnet: { uuid: SUBNET_UUID.toUpperCase() } }],
  boot_type: 'UEFI',
};

export function disk(index: number, sizeMib: number, imageUuid?: string): PrismDisk {
  return {
    uuid: `537e0000-0000-4000-8000-00000000000${index}`,
    device_properties: { disk_address: { adapter_type: 'SCSI', device_index: index }, device_type: 'DISK' },
    disk_size_mib: sizeMib,
    disk_size_bytes: sizeMib * 1024 * 1024,
    ...(imageUuid === undefined ? {} : { data_source_reference: { kind: 'image', uuid: imageUuid } }),
    storage_config: { storage_container_reference: { kind: 'storage_container', uuid: 'c0000000-0000-4000-8000-000000000001' } },
  };
}

export const CDROM: PrismDisk = {
  uuid: '537e0000-0000-4000-8000-0000000000cd',
  device_properties: { disk_address: { adapter_type: 'IDE', device_index: 0 }, device_type: 'CDROM' },
};

export function nic(subnetUuid: string, ip: string, index = 0): PrismNic {
  return {
    uuid: `22a60000-0000-4000-8000-00000000000${index}`,
    nic_type: 'NORMAL_NIC',
    vlan_mode: 'ACCESS',
    mac_address: `50:6b:8d:24:19:5${index}`,
    ip_endpoint_list: [{ type: 'ASSIGNED', ip }],
    subnet_reference: { kind: 'subnet', name: 'vlan173', uuid: subnetUuid },
    is_connected: true,
  };
}

export interface VmShape {
  name?: string;
  description?: string;
  power?: 'ON' | 'OFF';
  state?: string;
  sockets?: number;
  vcpus?: number;
  memory?: number;
  bootType?: string;
  disks?: PrismDisk[];
  nics?: PrismNic[];
  categories?: Record<string, string>;
  cluster?: string;
  uuid?: string;
  specVersion?: number;
}

/** A VM as GET /vms/{uuid} shows it; by default the seed's VM, owned by OWNER_UID, OFF and idle. */
export function prismVm(shape: VmShape = {}): PrismVm {
  const resources = {
    num_sockets: shape.sockets ?? 2,
    num_vcpus_per_socket: shape.vcpus ?? 1,
    num_threads_per_core: 1,
    memory_size_mib: shape.memory ?? 2048,
    power_state: shape.power ?? 'OFF',
    power_state_mechanism: { mechanism: 'HARD' },
    cpu_hotplug_enabled: true,
    machine_type: 'PC',
    disk_list: shape.disks ?? [],
    nic_list: shape.nics ?? [],
    boot_config: { boot_device_order_list: ['CDROM', 'DISK', 'NETWORK'], boot_type: shape.bootType ?? 'LEGACY' },
  };
  const cluster = { kind: 'cluster', name: 'ncn-dev-sandbox', uuid: shape.cluster ?? CLUSTER_UUID };
  const name = shape.name ?? 'ahvvm-from-operator';
  return {
    api_version: '3.1',
    metadata: {
      kind: 'vm',
      uuid: shape.uuid ?? 'bdbbad7a-0000-4000-8000-000000000001',
      spec_version: shape.specVersion ?? 3,
      spec_hash: '0'.repeat(50),
      entity_version: '4',
      categories: shape.categories ?? {},
      categories_mapping: {},
      project_reference: { kind: 'project', name: '_internal', uuid: 'f33d0000-0000-4000-8000-000000000001' },
      owner_reference: { kind: 'user', name: 'admin', uuid: '0a000000-0000-4000-8000-000000000001' },
      creation_time: '2025-06-07T18:23:52Z',
      last_update_time: '2025-06-07T18:23:52Z',
    },
    spec: {
      name,
      description: shape.description ?? `nutanix.com/ahvvm-owner-uid: ${OWNER_UID}`,
      cluster_reference: cluster,
      resources,
    },
    status: {
      name,
      state: shape.state ?? 'COMPLETE',
      cluster_reference: cluster,
      resources: { ...structuredClone(resources), hypervisor_type: 'AHV' },
      execution_context: { task_uuid: ['e074cb94-0000-4000-8000-000000000001'] },
    },
  };
}

/** `prismVm(shape)` as the operator's model sees it. */
export function observedVm(shape: VmShape = {}): ObservedVm {
  return observedVmFromV3(prismVm(shape));
}

/** The desired VM for `spec` on the tests' inventory; throws when it cannot be built. */
export function desiredVm(spec: AhvVmSpec): DesiredVm {
  const result = desiredVmSpec(avm(spec), CONTEXT);
  if (!result.ok) throw new Error(`fixture: ${result.message}`);
  return result.vm;
}
