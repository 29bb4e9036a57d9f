import type { PrismV4Task, PrismV4Vm, PrismV4VmInput } from './prism-v4-client.ts';
import { VM_ENTITY_REL } from './prism-v4-client.ts';
import type { PrismDisk, PrismNic, PrismTask, PrismVm, PrismVmIntent } from './prism-types.ts';

/**
 * v4 VMs and tasks in the v3 shapes the operator's pure logic reads (`diffVm`, `planUpdate`, `observedVmStatus`,
 * `findOwnedVm`), and the operator's v3-shaped intent as v4 bodies. Field names are the VMM v4.2 SDK's: v3
 * `num_vcpus_per_socket` is `numCoresPerSocket`, MiB are bytes, a disk's image is
 * `backingInfo.dataSource.reference.imageExtId`, a NIC's subnet `nicNetworkInfo.subnet.extId` (v4.2) or
 * `networkInfo.subnet.extId` (older), UEFI and Secure Boot are a `UefiBoot` with `isSecureBootEnabled`.
 */

const MIB = 1024 * 1024;
const CONFIG = 'vmm.v4.ahv.config';

/** Categories by extId, as the v4 categories API (or a cache of it) names them. */
export type CategoryNames = ReadonlyMap<string, readonly [key: string, value: string]>;

/** How an extId the operator could not name appears in `metadata.categories` (so it differs from any wanted one). */
export const UNNAMED_CATEGORY_PREFIX = 'v4-category-extid/';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: unknown, key: string): Json | undefined => (isObject(value) && isObject(value[key]) ? value[key] : undefined);
const stringAt = (value: unknown, key: string): string | undefined => (isObject(value) && typeof value[key] === 'string' ? value[key] : undefined);

function bootTypeOf(vm: PrismV4Vm): string {
  const boot = objectAt(vm, 'bootConfig');
  const type = stringAt(boot, '$objectType') ?? (typeof vm.$bootConfigItemDiscriminator === 'string' ? vm.$bootConfigItemDiscriminator : undefined);
  if (type === `${CONFIG}.UefiBoot`) return boot?.isSecureBootEnabled === true ? 'SECURE_BOOT' : 'UEFI';
  return 'LEGACY';
}

function diskOf(disk: unknown, deviceType: 'DISK' | 'CDROM'): PrismDisk {
  const backing = objectAt(disk, 'backingInfo');
  const address = objectAt(disk, 'diskAddress');
  const image = stringAt(objectAt(objectAt(backing, 'dataSource'), 'reference'), 'imageExtId');
  const size = typeof backing?.diskSizeBytes === 'number' ? backing.diskSizeBytes : undefined;
  const uuid = stringAt(disk, 'extId');
  return {
    ...(uuid === undefined ? {} : { uuid }),
    device_properties: {
      device_type: deviceType,
      disk_address: { adapter_type: stringAt(address, 'busType') ?? 'SCSI', device_index: typeof address?.index === 'number' ? address.index : 0 },
    },
    ...(size === undefined ? {} : { disk_size_bytes: size, disk_size_mib: Math.ceil(size / MIB) }),
    ...(image === undefined ? {} : { data_source_reference: { kind: 'image', uuid: image } }),
  };
}

function nicOf(nic: unknown): PrismNic {
  const network = objectAt(nic, 'nicNetworkInfo') ?? objectAt(nic, 'networkInfo');
  const backing = objectAt(nic, 'nicBackingInfo') ?? objectAt(nic, 'backingInfo');
  const subnet = stringAt(objectAt(network, 'subnet'), 'extId');
  const assigned = stringAt(objectAt(objectAt(network, 'ipv4Config'), 'ipAddress'), 'value');
  const learnedList = objectAt(network, 'ipv4Info')?.learnedIpAddresses;
  const learned = Array.isArray(learnedList) ? learnedList.map((address) => stringAt(address, 'value')).filter((ip): ip is string => ip !== undefined) : [];
  const uuid = stringAt(nic, 'extId');
  const endpoints = [...(assigned === undefined ? [] : [{ ip: assigned, type: 'ASSIGNED' }]), ...learned.map((ip) => ({ ip, type: 'LEARNED' }))];
  return {
    ...(uuid === undefined ? {} : { uuid }),
    ...(subnet === undefined ? {} : { subnet_reference: { kind: 'subnet', uuid: subnet } }),
    ip_endpoint_list: endpoints,
    is_connected: backing?.isConnected !== false,
  };
}

/** The v4 VM as a v3 VM: what the diff and the status read. v4 shows a VM only once its create task succeeded. */
export function prismVmFromV4(vm: PrismV4Vm, categoryNames: CategoryNames): PrismVm {
  const categories: Record<string, string> = {};
  for (const reference of vm.categories ?? []) {
    const named = categoryNames.get(reference.extId.toLowerCase());
    if (named === undefined) categories[`${UNNAMED_CATEGORY_PREFIX}${reference.extId}`] = '';
    else categories[named[0]] = named[1];
  }
  const disks = Array.isArray(vm.disks) ? vm.disks : [];
  const cdRoms = Array.isArray(vm.cdRoms) ? vm.cdRoms : [];
  const nics = Array.isArray(vm.nics) ? vm.nics : [];
  const resources = {
    num_sockets: vm.numSockets ?? 1,
    num_vcpus_per_socket: vm.numCoresPerSocket ?? 1,
    num_threads_per_core: vm.numThreadsPerCore ?? 1,
    memory_size_mib: Math.round((vm.memorySizeBytes ?? 0) / MIB),
    power_state: vm.powerState ?? 'UNKNOWN',
    boot_config: { boot_type: bootTypeOf(vm) },
    disk_list: [...disks.map((disk) => diskOf(disk, 'DISK')), ...cdRoms.map((disk) => diskOf(disk, 'CDROM'))],
    nic_list: nics.map(nicOf),
  };
  return {
    // v4 has no spec_version: the ETag plays its part, and stays with the v4 VM (PrismV4VmApi).
    metadata: { kind: 'vm', uuid: vm.extId, categories },
    spec: {
      name: vm.name,
      ...(vm.description === undefined ? {} : { description: vm.description }),
      ...(vm.cluster === undefined ? {} : { cluster_reference: { kind: 'cluster', uuid: vm.cluster.extId } }),
      resources,
    },
    // A v4 VM has no status.state: it exists once created, and a change sent during another one fails its task.
    status: { name: vm.name, state: 'COMPLETE', resources },
  };
}

function bootConfigFor(bootType: string, current: PrismV4Vm | undefined): { $bootConfigItemDiscriminator: string; bootConfig: Json } {
  if (bootType === 'UEFI' || bootType === 'SECURE_BOOT') {
    const type = `${CONFIG}.UefiBoot`;
    return { $bootConfigItemDiscriminator: type, bootConfig: { $objectType: type, isSecureBootEnabled: bootType === 'SECURE_BOOT' } };
  }
  const type = `${CONFIG}.LegacyBoot`;
  const kept = current !== undefined && bootTypeOf(current) === 'LEGACY' ? objectAt(current, 'bootConfig') : undefined;
  return { $bootConfigItemDiscriminator: type, bootConfig: { ...kept, $objectType: type } };
}

/** Category references for the intent's categories, or undefined when it does not manage them. */
function categoryReferences(intent: PrismVmIntent, extIdOf: (key: string, value: string) => string): { extId: string }[] | undefined {
  const categories = intent.metadata.categories;
  if (categories === undefined) return undefined;
  return Object.entries(categories).map(([key, value]) => ({ $objectType: 'vmm.v4.ahv.config.CategoryReference', extId: extIdOf(key, value) }));
}

/** The create body (`vmm.v4.ahv.config.Vm`) for the operator's intent. */
export function v4CreateBody(intent: PrismVmIntent, extIdOf: (key: string, value: string) => string): PrismV4VmInput {
  const { spec } = intent;
  const resources = spec.resources;
  const categories = categoryReferences(intent, extIdOf);
  const bootType = resources.boot_config?.boot_type;
  const userData = resources.guest_customization?.cloud_init?.user_data;
  return {
    name: spec.name,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    ...(spec.cluster_reference === undefined ? {} : { cluster: { extId: spec.cluster_reference.uuid } }),
    ...(resources.num_sockets === undefined ? {} : { numSockets: resources.num_sockets }),
    ...(resources.num_vcpus_per_socket === undefined ? {} : { numCoresPerSocket: resources.num_vcpus_per_socket }),
    ...(resources.memory_size_mib === undefined ? {} : { memorySizeBytes: resources.memory_size_mib * MIB }),
    ...(resources.power_state === 'ON' || resources.power_state === 'OFF' ? { powerState: resources.power_state } : {}),
    ...(bootType === undefined ? {} : bootConfigFor(bootType, undefined)),
    ...(categories === undefined ? {} : { categories }),
    disks: (resources.disk_list ?? []).map((disk, index) => v4DiskBody(disk, index)),
    nics: (resources.nic_list ?? []).map(v4NicBody),
    ...(userData === undefined
      ? {}
      : {
          guestCustomization: {
            $objectType: `${CONFIG}.GuestCustomizationParams`,
            config: { $objectType: `${CONFIG}.CloudInit`, cloudInitScript: { $objectType: `${CONFIG}.Userdata`, value: userData } },
          },
        }),
  };
}

/** A `Disk` for a create body, or for `POST …/disks` without an index (the server takes the next free one). */
export function v4DiskBody(disk: PrismDisk, index?: number): Json {
  return {
    $objectType: `${CONFIG}.Disk`,
    ...(index === undefined ? {} : { diskAddress: { $objectType: `${CONFIG}.DiskAddress`, busType: 'SCSI', index } }),
    $backingInfoItemDiscriminator: `${CONFIG}.VmDisk`,
    backingInfo: {
      $objectType: `${CONFIG}.VmDisk`,
      ...(disk.disk_size_mib === undefined ? {} : { diskSizeBytes: disk.disk_size_mib * MIB }),
      ...(disk.data_source_reference === undefined
        ? {}
        : { dataSource: { $objectType: `${CONFIG}.DataSource`, reference: { $objectType: `${CONFIG}.ImageReference`, imageExtId: disk.data_source_reference.uuid } } }),
    },
  };
}

/** A `Nic` on the intent's subnet, for a create body, `POST …/nics`, or `PUT …/nics/{extId}` to move it there. */
export function v4NicBody(nic: PrismNic): Json {
  return {
    $objectType: `${CONFIG}.Nic`,
    $nicBackingInfoItemDiscriminator: `${CONFIG}.VirtualEthernetNic`,
    nicBackingInfo: { $objectType: `${CONFIG}.VirtualEthernetNic`, isConnected: nic.is_connected ?? true },
    $nicNetworkInfoItemDiscriminator: `${CONFIG}.VirtualEthernetNicNetworkInfo`,
    nicNetworkInfo: {
      $objectType: `${CONFIG}.VirtualEthernetNicNetworkInfo`,
      ...(nic.subnet_reference === undefined ? {} : { subnet: { extId: nic.subnet_reference.uuid } }),
    },
  };
}

/**
 * The `PUT …/disks/{extId}` body that grows a disk: the disk as read with the new size, without its data source (an
 * existing disk is never re-imaged; Terraform's v4 VM resource leaves it out of disk updates too).
 */
export function v4GrownDiskBody(current: PrismV4Vm, extId: string, sizeMib: number): Json {
  const disks: unknown[] = Array.isArray(current.disks) ? current.disks : [];
  const disk = disks.find((candidate) => stringAt(candidate, 'extId')?.toLowerCase() === extId.toLowerCase());
  if (!isObject(disk)) throw new Error(`VM ${current.extId} has no disk ${extId}`);
  const { dataSource: _dataSource, ...backing } = objectAt(disk, 'backingInfo') ?? {};
  return { ...structuredClone(disk), backingInfo: { ...structuredClone(backing), $objectType: `${CONFIG}.VmDisk`, diskSizeBytes: sizeMib * MIB } };
}

/**
 * The PUT body: the VM as read with the managed fields of `desired` applied — name, description, CPU, memory, boot
 * type, categories. A v4 PUT does not change disks, NICs or the power state (sub-resources and actions do).
 */
export function v4UpdateBody(current: PrismV4Vm, desired: PrismVmIntent, extIdOf: (key: string, value: string) => string): PrismV4Vm {
  const want = desired.spec.resources;
  const body: PrismV4Vm = { ...structuredClone(current), name: desired.spec.name };
  if (desired.spec.description !== undefined) body.description = desired.spec.description;
  if (want.num_sockets !== undefined) body.numSockets = want.num_sockets;
  if (want.num_vcpus_per_socket !== undefined) body.numCoresPerSocket = want.num_vcpus_per_socket;
  if (want.memory_size_mib !== undefined) body.memorySizeBytes = want.memory_size_mib * MIB;
  const bootType = want.boot_config?.boot_type;
  if (bootType !== undefined && bootType !== bootTypeOf(current)) Object.assign(body, bootConfigFor(bootType, current));
  const categories = categoryReferences(desired, extIdOf);
  if (categories !== undefined) body.categories = categories;
  return body;
}

/** Task states of v4 in the v3 vocabulary the reconciler follows (v4's CANCELED is v3's ABORTED). */
export function prismTaskFromV4(task: PrismV4Task): PrismTask {
  const [first] = task.errorMessages ?? [];
  const detail = task.legacyErrorMessage ?? first?.message;
  const status = task.status === 'CANCELED' ? 'ABORTED' : task.status === 'CANCELING' ? 'RUNNING' : task.status;
  return {
    uuid: task.extId,
    status,
    ...(task.operation === undefined ? {} : { operation_type: task.operation }),
    ...(task.progressPercentage === undefined ? {} : { percentage_complete: task.progressPercentage }),
    ...(first?.errorGroup === undefined ? {} : { error_code: first.errorGroup }),
    ...(detail === undefined ? {} : { error_detail: detail }),
    entity_reference_list: (task.entitiesAffected ?? []).filter((entity) => entity.rel === VM_ENTITY_REL).map((entity) => ({ kind: 'vm', uuid: entity.extId })),
  };
}

/** The VM a finished create task made (v3: the idempotence UUID; v4: `entitiesAffected`). */
export function vmUuidOfTask(task: PrismTask): string | undefined {
  return task.entity_reference_list?.find((entity) => entity.kind === 'vm')?.uuid;
}
