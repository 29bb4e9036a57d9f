import { distinctAddresses, type DesiredDisk, type DesiredNic, type DesiredVm, type ObservedDisk, type ObservedNic, type ObservedVm } from '../../vm/vm-model.ts';
import type { VmTask } from '../../vm/vm-task.ts';
import { vmExtIdOf, type PrismV4Task, type PrismV4Vm, type PrismV4VmInput } from './prism-v4-client.ts';

/**
 * v4 VMs and tasks as the operator's model (`ObservedVm`, `VmTask`), and the model's `DesiredVm` as v4 bodies. Field
 * names are the VMM v4.2 SDK's: vCPUs per socket are `numCoresPerSocket`, MiB are bytes, a disk's image is
 * `backingInfo.dataSource.reference.imageExtId` and its storage container `backingInfo.storageContainer.extId`, a NIC's subnet `nicNetworkInfo.subnet.extId` (v4.2) or
 * `networkInfo.subnet.extId` (older), UEFI and Secure Boot are a `UefiBoot` with `isSecureBootEnabled`.
 */

const MIB = 1024 * 1024;
const CONFIG = 'vmm.v4.ahv.config';

/** Categories by extId, as the v4 categories API (or a cache of it) names them. */
export type CategoryNames = ReadonlyMap<string, readonly [key: string, value: string]>;

/** How an extId the operator could not name appears in `categories` (so it differs from any wanted one). */
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

function diskOf(disk: unknown): ObservedDisk {
  const backing = objectAt(disk, 'backingInfo');
  const size = typeof backing?.diskSizeBytes === 'number' ? backing.diskSizeBytes : undefined;
  return {
    id: stringAt(disk, 'extId'),
    imageUuid: stringAt(objectAt(objectAt(backing, 'dataSource'), 'reference'), 'imageExtId'),
    sizeMib: size === undefined ? undefined : Math.ceil(size / MIB),
    storageContainerUuid: stringAt(objectAt(backing, 'storageContainer'), 'extId'),
  };
}

function networkInfoOf(nic: unknown): Json | undefined {
  return objectAt(nic, 'nicNetworkInfo') ?? objectAt(nic, 'networkInfo');
}

function nicOf(nic: unknown): ObservedNic {
  return { id: stringAt(nic, 'extId'), subnetUuid: stringAt(objectAt(networkInfoOf(nic), 'subnet'), 'extId') };
}

/** A NIC's addresses: the one assigned, then those learned. */
function addressesOf(nic: unknown): (string | undefined)[] {
  const network = networkInfoOf(nic);
  const learned = objectAt(network, 'ipv4Info')?.learnedIpAddresses;
  return [stringAt(objectAt(objectAt(network, 'ipv4Config'), 'ipAddress'), 'value'), ...(Array.isArray(learned) ? learned.map((address) => stringAt(address, 'value')) : [])];
}

/** The v4 VM in the operator's terms. v4 shows a VM only once its create task succeeded. */
export function observedVmFromV4(vm: PrismV4Vm, categoryNames: CategoryNames): ObservedVm {
  const categories: Record<string, string> = {};
  for (const reference of vm.categories ?? []) {
    const named = categoryNames.get(reference.extId.toLowerCase());
    if (named === undefined) categories[`${UNNAMED_CATEGORY_PREFIX}${reference.extId}`] = '';
    else categories[named[0]] = named[1];
  }
  const nics: unknown[] = Array.isArray(vm.nics) ? vm.nics : [];
  return {
    uuid: vm.extId,
    name: vm.name,
    description: vm.description,
    clusterUuid: vm.cluster?.extId,
    numSockets: vm.numSockets ?? 1,
    numVcpusPerSocket: vm.numCoresPerSocket ?? 1,
    memoryMib: Math.round((vm.memorySizeBytes ?? 0) / MIB),
    powerState: vm.powerState ?? 'UNKNOWN',
    bootType: bootTypeOf(vm),
    categories,
    // CD-ROMs are a list of their own in v4 (`cdRoms`): they are not disks of the AhvVm.
    disks: Array.isArray(vm.disks) ? vm.disks.map(diskOf) : [],
    nics: nics.map(nicOf),
    ipAddresses: distinctAddresses(nics.flatMap(addressesOf)),
    // A v4 VM has no state: it exists once created, and a change sent during another one fails its task. Nor has it
    // a spec_version: the ETag plays its part, and stays with the v4 VM (PrismV4VmApi).
    state: 'COMPLETE',
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

/** Category references for the desired categories, or undefined when they are not managed. */
function categoryReferences(desired: DesiredVm, extIdOf: (key: string, value: string) => string): { extId: string }[] | undefined {
  const categories = desired.categories;
  if (categories === undefined) return undefined;
  return Object.entries(categories).map(([key, value]) => ({ $objectType: 'vmm.v4.ahv.config.CategoryReference', extId: extIdOf(key, value) }));
}

/** The create body (`vmm.v4.ahv.config.Vm`) for the desired VM. */
export function v4CreateBody(desired: DesiredVm, extIdOf: (key: string, value: string) => string): PrismV4VmInput {
  const categories = categoryReferences(desired, extIdOf);
  const userData = desired.cloudInitUserData;
  return {
    name: desired.name,
    description: desired.description,
    cluster: { extId: desired.clusterUuid },
    // CAPX v1.10.3 addVMToProject: vm.Project = ProjectReference{ExtId} (vmm-go-client v4.2.1 config.Vm.Project).
    ...(desired.projectUuid === undefined ? {} : { project: { $objectType: `${CONFIG}.ProjectReference`, extId: desired.projectUuid } }),
    numSockets: desired.numSockets,
    numCoresPerSocket: desired.numVcpusPerSocket,
    memorySizeBytes: desired.memoryMib * MIB,
    ...(desired.powerState === undefined ? {} : { powerState: desired.powerState }),
    ...(desired.bootType === undefined ? {} : bootConfigFor(desired.bootType, undefined)),
    ...(categories === undefined ? {} : { categories }),
    disks: (desired.disks ?? []).map((disk, index) => v4DiskBody(disk, index)),
    nics: (desired.nics ?? []).map(v4NicBody),
    // CAPX v1.10.3 GetGPUsForPE: a vmm Gpu with the profile's deviceId, name, mode and vendor.
    ...(desired.gpus === undefined
      ? {}
      : { gpus: desired.gpus.map((gpu) => ({ $objectType: `${CONFIG}.Gpu`, mode: gpu.mode, vendor: gpu.vendor, deviceId: gpu.deviceId, ...(gpu.name === undefined ? {} : { name: gpu.name }) })) }),
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
export function v4DiskBody(disk: DesiredDisk, index?: number): Json {
  return {
    $objectType: `${CONFIG}.Disk`,
    ...(index === undefined ? {} : { diskAddress: { $objectType: `${CONFIG}.DiskAddress`, busType: 'SCSI', index } }),
    $backingInfoItemDiscriminator: `${CONFIG}.VmDisk`,
    backingInfo: {
      $objectType: `${CONFIG}.VmDisk`,
      ...(disk.sizeMib === undefined ? {} : { diskSizeBytes: disk.sizeMib * MIB }),
      ...(disk.imageUuid === undefined
        ? {}
        : { dataSource: { $objectType: `${CONFIG}.DataSource`, reference: { $objectType: `${CONFIG}.ImageReference`, imageExtId: disk.imageUuid } } }),
      // CAPX v1.10.3 addStorageConfigAndContainerToVmDisk: a VmDiskContainerReference with the container's extId.
      ...(disk.storageContainerUuid === undefined ? {} : { storageContainer: { $objectType: `${CONFIG}.VmDiskContainerReference`, extId: disk.storageContainerUuid } }),
    },
  };
}

/** A connected `Nic` on the desired subnet, for a create body, `POST …/nics`, or `PUT …/nics/{extId}` to move it there. */
export function v4NicBody(nic: DesiredNic): Json {
  return {
    $objectType: `${CONFIG}.Nic`,
    $nicBackingInfoItemDiscriminator: `${CONFIG}.VirtualEthernetNic`,
    nicBackingInfo: { $objectType: `${CONFIG}.VirtualEthernetNic`, isConnected: true },
    $nicNetworkInfoItemDiscriminator: `${CONFIG}.VirtualEthernetNicNetworkInfo`,
    nicNetworkInfo: { $objectType: `${CONFIG}.VirtualEthernetNicNetworkInfo`, subnet: { extId: nic.subnetUuid } },
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
export function v4UpdateBody(current: PrismV4Vm, desired: DesiredVm, extIdOf: (key: string, value: string) => string): PrismV4Vm {
  const body: PrismV4Vm = {
    ...structuredClone(current),
    name: desired.name,
    description: desired.description,
    numSockets: desired.numSockets,
    numCoresPerSocket: desired.numVcpusPerSocket,
    memorySizeBytes: desired.memoryMib * MIB,
  };
  if (desired.bootType !== undefined && desired.bootType !== bootTypeOf(current)) Object.assign(body, bootConfigFor(desired.bootType, current));
  const categories = categoryReferences(desired, extIdOf);
  if (categories !== undefined) body.categories = categories;
  return body;
}

/** v4's task states in the model's (v3's) words: v4's CANCELED is ABORTED, and CANCELING still RUNNING. */
export function vmTaskFromV4(task: PrismV4Task): VmTask {
  const [first] = task.errorMessages ?? [];
  const detail = task.legacyErrorMessage ?? first?.message;
  const vmUuid = vmExtIdOf(task);
  return {
    uuid: task.extId,
    status: task.status === 'CANCELED' ? 'ABORTED' : task.status === 'CANCELING' ? 'RUNNING' : task.status,
    ...(first?.errorGroup === undefined ? {} : { errorCode: first.errorGroup }),
    ...(detail === undefined ? {} : { errorDetail: detail }),
    ...(vmUuid === undefined ? {} : { vmUuid }),
  };
}
