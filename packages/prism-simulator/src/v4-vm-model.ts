// A VM in the shape of the v4.2 `vmm.v4.ahv.config.Vm` model, and the way back: a v4 create or update body as the
// v3 intent the shared VM code runs. v3 and v4 are two views of one store, so a VM created through one is read,
// changed and deleted through the other. Field names, enum values and `$objectType`s are those of
// vmm-go-client/v4 v4.2.1 (models/vmm/v4/ahv/config); every object carries `$objectType` and `$reserved`, which the
// SDK needs to choose a type for a one-of and to hang the ETag on.

import { createHash } from 'node:crypto';
import type { CategoryStore } from './categories.ts';
import type { Inventory } from './inventory.ts';
import { isPlainObject } from './schema-validation.ts';
import { isoSeconds } from './tasks.ts';
import { v4Object } from './v4-envelope.ts';
import { COMMON_RESERVED, V4ApiError, invalidArgument } from './v4-errors.ts';
import type { DiskInput, NicInput, ReferenceInput, ResourcesInput, VmIntentInput } from './vm-schema.ts';
import type { DiskSpec, NicSpec, VmRecord, VmSpec } from './vm-store.ts';

const MIB = 1024 * 1024;
const CONFIG = 'vmm.v4.ahv.config';


/**
 * The extId of a category value. v3 names categories by key and value; v4 refers to each key:value pair by a UUID.
 * The simulator derives it from the pair (a name-based UUID), so both APIs agree on it without a second store.
 */
export function categoryExtId(key: string, value: string): string {
  const hex = createHash('sha1').update(`category:${key}=${value}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/** v3 calls the POWER9 bus `SPAPR_VSCSI`; v4 calls it `SPAPR`. */
const toV4Bus = (adapter: string): string => (adapter === 'SPAPR_VSCSI' ? 'SPAPR' : adapter);
const toV3Bus = (bus: string): string => (bus === 'SPAPR' ? 'SPAPR_VSCSI' : bus);

export interface RenderContext {
  inventory: Inventory;
  /** How long after power-on DHCP addresses show (SimulatorTimings.learnedIpMs). */
  learnedIpDelayMs: number;
}

/** The VM as GET /vms/{extId} and the list show it: what its last successful task applied. */
export function renderV4Vm(vm: VmRecord, context: RenderContext): Record<string, unknown> {
  const shown = vm.applied ?? vm.spec;
  const resources = shown.resources;
  const bootConfig = isPlainObject(resources.boot_config) ? resources.boot_config : {};
  const uefi = bootConfig.boot_type === 'UEFI' || bootConfig.boot_type === 'SECURE_BOOT';
  const guestHasAddresses = vm.poweredOnAt !== undefined && performance.now() - vm.poweredOnAt >= context.learnedIpDelayMs;
  const categories = Object.entries(vm.metadata.categoriesMapping).flatMap(([key, values]) => values.map((value) => v4Object(`${CONFIG}.CategoryReference`, { extId: categoryExtId(key, value) })));
  const bootType = uefi ? `${CONFIG}.UefiBoot` : `${CONFIG}.LegacyBoot`;
  const bootOrder = Array.isArray(bootConfig.boot_device_order_list) ? bootConfig.boot_device_order_list : ['CDROM', 'DISK', 'NETWORK'];
  return v4Object(`${CONFIG}.Vm`, {
    extId: vm.uuid,
    name: shown.name,
    ...(shown.description === undefined ? {} : { description: shown.description }),
    createTime: isoSeconds(vm.creationTime),
    updateTime: isoSeconds(vm.lastUpdateTime),
    cluster: v4Object(`${CONFIG}.ClusterReference`, { extId: shown.cluster_reference.uuid }),
    // vmm-go-client v4.2.1 config.Vm.Project (a ProjectReference): the project v3 shows as metadata.project_reference.
    project: v4Object(`${CONFIG}.ProjectReference`, { extId: vm.metadata.project_reference.uuid }),
    numSockets: resources.num_sockets,
    numCoresPerSocket: resources.num_vcpus_per_socket,
    numThreadsPerCore: resources.num_threads_per_core,
    numNumaNodes: 0,
    memorySizeBytes: resources.memory_size_mib * MIB,
    powerState: vm.applied?.resources.power_state ?? 'OFF',
    machineType: typeof resources.machine_type === 'string' ? resources.machine_type : 'PC',
    hardwareClockTimezone: typeof resources.hardware_clock_timezone === 'string' ? resources.hardware_clock_timezone : 'UTC',
    isAgentVm: resources.is_agent_vm === true,
    isCpuHotplugEnabled: resources.cpu_hotplug_enabled !== false,
    isScsiControllerEnabled: resources.scsi_controller_enabled !== false,
    isVgaConsoleEnabled: resources.vga_console_enabled !== false,
    isVcpuHardPinningEnabled: resources.is_vcpu_hard_pinned === true,
    isMemoryOvercommitEnabled: resources.memory_overcommit_enabled === true,
    isGpuConsoleEnabled: resources.gpu_console_enabled === true,
    isCpuPassthroughEnabled: resources.enable_cpu_passthrough === true,
    isBrandingEnabled: resources.disable_branding !== true,
    isLiveMigrateCapable: true,
    isCrossClusterMigrationInProgress: false,
    biosUuid: vm.uuid,
    generationUuid: vm.generationUuid,
    protectionType: 'UNPROTECTED',
    $bootConfigItemDiscriminator: bootType,
    bootConfig: uefi
      ? v4Object(bootType, { isSecureBootEnabled: bootConfig.boot_type === 'SECURE_BOOT' })
      : v4Object(bootType, { bootOrder }),
    categories,
    ...(vm.customAttributes.length === 0 ? {} : { customAttributes: [...vm.customAttributes] }),
    disks: resources.disk_list.filter((d) => d.device_properties.device_type === 'DISK').map(renderDisk),
    cdRoms: resources.disk_list.filter((d) => d.device_properties.device_type === 'CDROM').map(renderCdRom),
    nics: resources.nic_list.map((nic) => renderNic(nic, vm, guestHasAddresses, context.inventory)),
    ...(Array.isArray(resources.gpu_list) && resources.gpu_list.length > 0 ? { gpus: resources.gpu_list.filter(isPlainObject).map(renderGpu) } : {}),
  });
}

/** A v3 `gpu_list` entry as a `vmm.v4.ahv.config.Gpu`. */
function renderGpu(gpu: Record<string, unknown>): Record<string, unknown> {
  return v4Object(`${CONFIG}.Gpu`, {
    mode: gpu.mode,
    vendor: gpu.vendor,
    deviceId: gpu.device_id,
    ...(typeof gpu.name === 'string' ? { name: gpu.name } : {}),
  });
}

function renderBacking(disk: DiskSpec): Record<string, unknown> {
  const source = disk.data_source_reference;
  const container = isPlainObject(disk.storage_config) && isPlainObject(disk.storage_config.storage_container_reference) ? disk.storage_config.storage_container_reference : undefined;
  const reference = source?.kind === 'image'
    ? v4Object(`${CONFIG}.ImageReference`, { imageExtId: source.uuid })
    : source ? v4Object(`${CONFIG}.VmDiskReference`, { diskExtId: source.uuid }) : undefined;
  return v4Object(`${CONFIG}.VmDisk`, {
    diskExtId: disk.uuid,
    ...(disk.disk_size_bytes === undefined ? {} : { diskSizeBytes: disk.disk_size_bytes }),
    ...(typeof container?.uuid === 'string' ? { storageContainer: v4Object(`${CONFIG}.VmDiskContainerReference`, { extId: container.uuid }) } : {}),
    ...(reference ? { dataSource: v4Object(`${CONFIG}.DataSource`, { $referenceItemDiscriminator: reference.$objectType, reference }) } : {}),
    isMigrationInProgress: false,
  });
}

function renderDisk(disk: DiskSpec): Record<string, unknown> {
  const address = disk.device_properties.disk_address;
  return v4Object(`${CONFIG}.Disk`, {
    extId: disk.uuid,
    diskAddress: v4Object(`${CONFIG}.DiskAddress`, { busType: toV4Bus(address.adapter_type), index: address.device_index }),
    $backingInfoItemDiscriminator: `${CONFIG}.VmDisk`,
    backingInfo: renderBacking(disk),
  });
}

function renderCdRom(disk: DiskSpec): Record<string, unknown> {
  const address = disk.device_properties.disk_address;
  return v4Object(`${CONFIG}.CdRom`, {
    extId: disk.uuid,
    diskAddress: v4Object(`${CONFIG}.CdRomAddress`, { busType: address.adapter_type === 'SATA' ? 'SATA' : 'IDE', index: address.device_index }),
    ...(disk.data_source_reference ? { backingInfo: renderBacking(disk), isoType: 'OTHER' } : {}),
  });
}

function renderNic(nic: NicSpec, vm: VmRecord, guestHasAddresses: boolean, inventory: Inventory): Record<string, unknown> {
  const prefixLength = Number(inventory.subnet(nic.subnet_reference.uuid)?.cidr.split('/')[1] ?? 32);
  const address = (ip: string): Record<string, unknown> => v4Object('common.v1.config.IPv4Address', { value: ip, prefixLength }, COMMON_RESERVED);
  const [assigned, ...secondary] = nic.ip_endpoint_list.filter((e) => e.type === 'ASSIGNED');
  const learned = vm.learnedIps.get(nic.uuid);
  const backing = {
    macAddress: nic.mac_address,
    isConnected: nic.is_connected,
    model: 'VIRTIO',
    numQueues: typeof nic.num_queues === 'number' ? nic.num_queues : 1,
  };
  const network = {
    nicType: typeof nic.nic_type === 'string' ? nic.nic_type : 'NORMAL_NIC',
    subnet: v4Object(`${CONFIG}.SubnetReference`, { extId: nic.subnet_reference.uuid }),
    vlanMode: typeof nic.vlan_mode === 'string' ? nic.vlan_mode : 'ACCESS',
    shouldAllowUnknownMacs: false,
    ipv4Config: v4Object(`${CONFIG}.Ipv4Config`, {
      shouldAssignIp: assigned !== undefined,
      ...(assigned ? { ipAddress: address(assigned.ip) } : {}),
      ...(secondary.length > 0 ? { secondaryIpAddressList: secondary.map((e) => address(e.ip)) } : {}),
    }),
    ...(guestHasAddresses && nic.is_connected && learned !== undefined ? { ipv4Info: v4Object(`${CONFIG}.Ipv4Info`, { learnedIpAddresses: [address(learned)] }) } : {}),
  };
  // v4.2 added `nicBackingInfo` / `nicNetworkInfo` (one-ofs) beside the older `backingInfo` / `networkInfo`;
  // a v4.2 PC fills both, so clients written for either find their fields.
  return v4Object(`${CONFIG}.Nic`, {
    extId: nic.uuid,
    backingInfo: v4Object(`${CONFIG}.EmulatedNic`, backing),
    networkInfo: v4Object(`${CONFIG}.NicNetworkInfo`, network),
    $nicBackingInfoItemDiscriminator: `${CONFIG}.VirtualEthernetNic`,
    nicBackingInfo: v4Object(`${CONFIG}.VirtualEthernetNic`, backing),
    $nicNetworkInfoItemDiscriminator: `${CONFIG}.VirtualEthernetNicNetworkInfo`,
    nicNetworkInfo: v4Object(`${CONFIG}.VirtualEthernetNicNetworkInfo`, network),
  });
}

// ---- v4 bodies to v3 intents -------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function field<T>(object: Json, name: string, path: string, check: (value: unknown) => value is T, what: string): T | undefined {
  const value = object[name];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw invalidArgument(`${path}${name}: ${JSON.stringify(value)} is not ${what}.`);
  return value;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isObject = (v: unknown): v is Json => isPlainObject(v);
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

function extIdOf(object: Json, name: string, path: string): string | undefined {
  const reference = field(object, name, path, isObject, 'an object');
  return reference ? field(reference, 'extId', `${path}${name}.`, isString, 'a string') : undefined;
}

function oneOf<T extends string>(object: Json, name: string, path: string, values: readonly T[]): T | undefined {
  const value = field(object, name, path, isString, 'a string');
  if (value !== undefined && !(values as readonly string[]).includes(value)) throw invalidArgument(`${path}${name}: '${value}' is not one of ${values.join(', ')}.`);
  return value as T | undefined;
}

/** The parts of a v4 Vm that a create or an update changes, as v3 resources. */
function cpuAndMemory(body: Json): Json {
  const resources: Json = {};
  const numSockets = field(body, 'numSockets', '', isInt, 'a non-negative integer');
  const cores = field(body, 'numCoresPerSocket', '', isInt, 'a non-negative integer');
  const threads = field(body, 'numThreadsPerCore', '', isInt, 'a non-negative integer');
  const memory = field(body, 'memorySizeBytes', '', isInt, 'a non-negative integer');
  if (numSockets !== undefined) resources.num_sockets = numSockets;
  if (cores !== undefined) resources.num_vcpus_per_socket = cores;
  if (threads !== undefined) resources.num_threads_per_core = threads;
  if (memory !== undefined) {
    if (memory % MIB !== 0) throw invalidArgument(`memorySizeBytes: ${memory} is not a whole number of MiB.`);
    resources.memory_size_mib = memory / MIB;
  }
  return resources;
}

function categoriesMapping(body: Json, categories: CategoryStore): Record<string, string[]> | undefined {
  const list = field(body, 'categories', '', isArray, 'an array');
  if (list === undefined) return undefined;
  const byExtId = new Map(categories.snapshot().flatMap((key) => key.values.map((value) => [categoryExtId(key.name, value), [key.name, value] as const])));
  const mapping: Record<string, string[]> = {};
  list.forEach((item, index) => {
    const extId = isObject(item) ? field(item, 'extId', `categories[${index}].`, isString, 'a string') : undefined;
    if (extId === undefined) throw invalidArgument(`categories[${index}]: a category reference needs an extId.`);
    const pair = byExtId.get(extId.toLowerCase());
    if (!pair) throw invalidArgument(`categories[${index}]: category ${extId} does not exist.`);
    const [key, value] = pair;
    mapping[key] = [...(mapping[key] ?? []), value];
  });
  return mapping;
}

function dataSourceOf(backing: Json, path: string): ReferenceInput | undefined {
  const source = field(backing, 'dataSource', path, isObject, 'an object');
  const reference = source ? field(source, 'reference', `${path}dataSource.`, isObject, 'an object') : undefined;
  if (!reference) return undefined;
  const imageExtId = field(reference, 'imageExtId', `${path}dataSource.reference.`, isString, 'a string');
  if (imageExtId !== undefined) return { kind: 'image', uuid: imageExtId };
  const diskExtId = field(reference, 'diskExtId', `${path}dataSource.reference.`, isString, 'a string');
  if (diskExtId !== undefined) return { kind: 'vm_disk', uuid: diskExtId };
  throw invalidArgument(`${path}dataSource.reference: needs imageExtId (an ImageReference) or diskExtId (a VmDiskReference).`);
}

function diskInput(item: unknown, index: number, deviceType: 'DISK' | 'CDROM'): DiskInput {
  const path = `${deviceType === 'DISK' ? 'disks' : 'cdRoms'}[${index}].`;
  if (!isObject(item)) throw invalidArgument(`${path.slice(0, -1)}: not an object.`);
  const address = field(item, 'diskAddress', path, isObject, 'an object') ?? {};
  const busTypes = deviceType === 'DISK' ? (['SCSI', 'IDE', 'PCI', 'SATA', 'SPAPR'] as const) : (['IDE', 'SATA'] as const);
  const bus = oneOf(address, 'busType', `${path}diskAddress.`, busTypes);
  const deviceIndex = field(address, 'index', `${path}diskAddress.`, isInt, 'a non-negative integer');
  const backing = field(item, 'backingInfo', path, isObject, 'an object') ?? {};
  const size = field(backing, 'diskSizeBytes', `${path}backingInfo.`, isInt, 'a non-negative integer');
  const source = dataSourceOf(backing, `${path}backingInfo.`);
  const container = extIdOf(backing, 'storageContainer', `${path}backingInfo.`);
  const extId = field(item, 'extId', path, isString, 'a string');
  return {
    ...(extId === undefined ? {} : { uuid: extId }),
    device_properties: { device_type: deviceType, disk_address: { ...(bus === undefined ? {} : { adapter_type: toV3Bus(bus) }), ...(deviceIndex === undefined ? {} : { device_index: deviceIndex }) } },
    ...(size === undefined ? {} : { disk_size_bytes: size }),
    ...(source ? { data_source_reference: source } : {}),
    ...(container === undefined ? {} : { storage_config: { storage_container_reference: { kind: 'storage_container', uuid: container } } }),
  };
}

function nicInput(item: unknown, index: number): NicInput {
  const path = `nics[${index}].`;
  if (!isObject(item)) throw invalidArgument(`nics[${index}]: not an object.`);
  // The v4.2 one-of fields win over the older ones they replace.
  const backing = field(item, 'nicBackingInfo', path, isObject, 'an object') ?? field(item, 'backingInfo', path, isObject, 'an object') ?? {};
  const network = field(item, 'nicNetworkInfo', path, isObject, 'an object') ?? field(item, 'networkInfo', path, isObject, 'an object') ?? {};
  const subnet = extIdOf(network, 'subnet', `${path}networkInfo.`);
  const config = field(network, 'ipv4Config', `${path}networkInfo.`, isObject, 'an object');
  const address = config ? field(config, 'ipAddress', `${path}networkInfo.ipv4Config.`, isObject, 'an object') : undefined;
  const ip = address ? field(address, 'value', `${path}networkInfo.ipv4Config.ipAddress.`, isString, 'a string') : undefined;
  const mac = field(backing, 'macAddress', `${path}backingInfo.`, isString, 'a string');
  const connected = field(backing, 'isConnected', `${path}backingInfo.`, isBool, 'a boolean');
  const queues = field(backing, 'numQueues', `${path}backingInfo.`, isInt, 'a non-negative integer');
  const nicType = oneOf(network, 'nicType', `${path}networkInfo.`, ['NORMAL_NIC', 'DIRECT_NIC', 'NETWORK_FUNCTION_NIC', 'SPAN_DESTINATION_NIC']);
  const vlanMode = oneOf(network, 'vlanMode', `${path}networkInfo.`, ['ACCESS', 'TRUNK']);
  const extId = field(item, 'extId', path, isString, 'a string');
  return {
    ...(extId === undefined ? {} : { uuid: extId }),
    ...(subnet === undefined ? {} : { subnet_reference: { kind: 'subnet', uuid: subnet } }),
    ...(mac === undefined ? {} : { mac_address: mac }),
    ...(ip === undefined ? {} : { ip_endpoint_list: [{ ip, type: 'ASSIGNED' as const }] }),
    ...(connected === undefined ? {} : { is_connected: connected }),
    ...(queues === undefined ? {} : { num_queues: queues }),
    ...(nicType === undefined ? {} : { nic_type: nicType }),
    ...(vlanMode === undefined ? {} : { vlan_mode: vlanMode }),
  };
}

const GPU_MODES = ['PASSTHROUGH_GRAPHICS', 'PASSTHROUGH_COMPUTE', 'VIRTUAL'] as const;
const GPU_VENDORS = ['NVIDIA', 'INTEL', 'AMD', 'UNKNOWN'] as const;

/** `gpus[]` (`vmm.v4.ahv.config.Gpu`: mode, vendor, deviceId, name) as v3 `gpu_list` entries. */
function gpuInputs(body: Json): Json[] | undefined {
  const list = field(body, 'gpus', '', isArray, 'an array');
  return list?.map((item, index) => {
    const path = `gpus[${index}].`;
    if (!isObject(item)) throw invalidArgument(`gpus[${index}]: not an object.`);
    const mode = oneOf(item, 'mode', path, GPU_MODES);
    const vendor = oneOf(item, 'vendor', path, GPU_VENDORS);
    const deviceId = field(item, 'deviceId', path, isInt, 'a non-negative integer');
    if (mode === undefined || vendor === undefined || deviceId === undefined) throw invalidArgument(`gpus[${index}]: a GPU needs mode, vendor and deviceId.`);
    const name = field(item, 'name', path, isString, 'a string');
    return { mode, vendor, device_id: deviceId, ...(name === undefined ? {} : { name }) };
  });
}

/**
 * `guestCustomization` with a `vmm.v4.ahv.config.CloudInit` config (what CAPX sends: base64 `metadata` and a
 * `Userdata` script) as v3 `guest_customization.cloud_init`. Sysprep and custom key-value scripts are refused rather
 * than dropped.
 */
function guestCustomizationInput(body: Json): Json | undefined {
  const params = field(body, 'guestCustomization', '', isObject, 'an object');
  if (!params) return undefined;
  const config = field(params, 'config', 'guestCustomization.', isObject, 'an object');
  const type = config?.$objectType ?? params.$configItemDiscriminator;
  if (config === undefined || type !== `${CONFIG}.CloudInit`) throw invalidArgument(`guestCustomization.config: ${JSON.stringify(type)} is not supported by the simulator (it takes a vmm.v4.ahv.config.CloudInit config).`);
  const path = 'guestCustomization.config.';
  oneOf(config, 'datasourceType', path, ['CONFIG_DRIVE_V2']);
  const metadata = field(config, 'metadata', path, isString, 'a string');
  const script = field(config, 'cloudInitScript', path, isObject, 'an object');
  const scriptType = script?.$objectType ?? config.$cloudInitScriptItemDiscriminator ?? `${CONFIG}.Userdata`;
  if (script !== undefined && scriptType !== `${CONFIG}.Userdata`) throw invalidArgument(`${path}cloudInitScript: ${JSON.stringify(scriptType)} is not supported by the simulator (it takes a vmm.v4.ahv.config.Userdata script).`);
  const userData = script ? field(script, 'value', `${path}cloudInitScript.`, isString, 'a string') : undefined;
  return { cloud_init: { ...(userData === undefined ? {} : { user_data: userData }), ...(metadata === undefined ? {} : { meta_data: metadata }) } };
}

function bootConfigInput(body: Json): Json | undefined {
  const boot = field(body, 'bootConfig', '', isObject, 'an object');
  if (!boot) return undefined;
  const type = typeof boot.$objectType === 'string' ? boot.$objectType : body.$bootConfigItemDiscriminator;
  if (type === `${CONFIG}.UefiBoot`) return { boot_type: boot.isSecureBootEnabled === true ? 'SECURE_BOOT' : 'UEFI' };
  if (type === `${CONFIG}.LegacyBoot` || type === undefined) {
    const order = field(boot, 'bootOrder', 'bootConfig.', isArray, 'an array');
    return { boot_type: 'LEGACY', ...(order ? { boot_device_order_list: order } : {}) };
  }
  throw invalidArgument(`bootConfig: ${JSON.stringify(type)} is not vmm.v4.ahv.config.LegacyBoot or vmm.v4.ahv.config.UefiBoot.`);
}

/** A v4 create body as the v3 intent the shared create runs. */
export function createIntentFromV4(body: unknown, categories: CategoryStore): VmIntentInput {
  if (!isObject(body)) throw invalidArgument('The request body must be a vmm.v4.ahv.config.Vm object.');
  const name = field(body, 'name', '', isString, 'a string');
  if (name === undefined || name === '') throw invalidArgument('name: a VM needs a name.');
  const description = field(body, 'description', '', isString, 'a string');
  const cluster = extIdOf(body, 'cluster', '');
  // CAPX v1.10.3 addVMToProject sets vm.Project = ProjectReference{ExtId} on the create body.
  const project = extIdOf(body, 'project', '');
  const powerState = oneOf(body, 'powerState', '', ['ON', 'OFF']);
  const disks = field(body, 'disks', '', isArray, 'an array') ?? [];
  const cdRoms = field(body, 'cdRoms', '', isArray, 'an array') ?? [];
  const nics = field(body, 'nics', '', isArray, 'an array') ?? [];
  const boot = bootConfigInput(body);
  const mapping = categoriesMapping(body, categories);
  const gpus = gpuInputs(body);
  const guestCustomization = guestCustomizationInput(body);
  return {
    metadata: { kind: 'vm', ...(mapping ? { use_categories_mapping: true, categories_mapping: mapping } : {}), ...(project === undefined ? {} : { project_reference: { kind: 'project', uuid: project } }) },
    spec: {
      name,
      ...(description === undefined ? {} : { description }),
      ...(cluster === undefined ? {} : { cluster_reference: { kind: 'cluster', uuid: cluster } }),
      resources: {
        ...cpuAndMemory(body),
        ...(powerState === undefined ? {} : { power_state: powerState }),
        ...(boot ? { boot_config: boot } : {}),
        ...(gpus ? { gpu_list: gpus } : {}),
        ...(guestCustomization ? { guest_customization: guestCustomization } : {}),
        disk_list: [...disks.map((d, i) => diskInput(d, i, 'DISK')), ...cdRoms.map((d, i) => diskInput(d, i, 'CDROM'))],
        nic_list: nics.map(nicInput),
      },
    },
  };
}

/**
 * A v4 update body as a v3 intent over the VM's applied spec. A v4 PUT changes the VM's own configuration (name,
 * description, CPU, memory, boot, categories); disks, NICs and CD-ROMs have endpoints of their own in v4 and the
 * power state has actions, so those are kept as they are whatever the body says.
 */
export function updateIntentFromV4(body: unknown, vm: VmRecord, applied: VmSpec, categories: CategoryStore): VmIntentInput {
  if (!isObject(body)) throw invalidArgument('The request body must be a vmm.v4.ahv.config.Vm object.');
  const name = field(body, 'name', '', isString, 'a string') ?? applied.name;
  const description = field(body, 'description', '', isString, 'a string') ?? applied.description;
  const cluster = extIdOf(body, 'cluster', '');
  const boot = bootConfigInput(body);
  const mapping = categoriesMapping(body, categories) ?? vm.metadata.categoriesMapping;
  const spec = structuredClone(applied);
  return {
    metadata: { kind: 'vm', spec_version: vm.specVersion, use_categories_mapping: true, categories_mapping: structuredClone(mapping) },
    spec: {
      ...spec,
      name,
      ...(description === undefined ? {} : { description }),
      cluster_reference: cluster === undefined ? spec.cluster_reference : { kind: 'cluster', uuid: cluster },
      resources: { ...spec.resources, ...cpuAndMemory(body), ...(boot ? { boot_config: boot } : {}) },
    },
  };
}

/** The v3 intent of a power action: the applied spec with another power state. */
export function powerIntent(vm: VmRecord, applied: VmSpec, powerState: 'ON' | 'OFF'): VmIntentInput {
  return appliedIntent(vm, applied, { power_state: powerState });
}

/** The VM as it is: the update behind a change the v3 intent cannot carry (custom attributes). */
export function unchangedIntent(vm: VmRecord, applied: VmSpec): VmIntentInput {
  return appliedIntent(vm, applied, {});
}

/**
 * The body of `$actions/add-custom-attributes` and `remove-custom-attributes`: a
 * `vmm.v4.ahv.config.UpdateCustomAttributesParams` whose `customAttributes` (required) are strings.
 */
export function customAttributesOf(body: unknown): string[] {
  const attributes = isPlainObject(body) ? body.customAttributes : undefined;
  if (!Array.isArray(attributes) || !attributes.every((a): a is string => typeof a === 'string')) {
    throw invalidArgument('customAttributes: an UpdateCustomAttributesParams needs customAttributes, a list of strings.');
  }
  return attributes;
}

/** The applied spec with some resources replaced, as a v3 update that keeps the VM's categories. */
function appliedIntent(vm: VmRecord, applied: VmSpec, resources: Partial<ResourcesInput>): VmIntentInput {
  const spec = structuredClone(applied);
  return {
    metadata: { kind: 'vm', spec_version: vm.specVersion, use_categories_mapping: true, categories_mapping: structuredClone(vm.metadata.categoriesMapping) },
    spec: { ...spec, resources: { ...spec.resources, ...resources } },
  };
}

/** A write to one of a VM's disk or NIC sub-resources (`…/vms/{extId}/disks[/{extId}]`, `…/nics[/{extId}]`). */
export type V4DeviceChange =
  | { kind: 'add-disk'; body: unknown }
  | { kind: 'update-disk'; extId: string; body: unknown }
  | { kind: 'remove-disk'; extId: string }
  | { kind: 'add-nic'; body: unknown }
  | { kind: 'update-nic'; extId: string; body: unknown }
  | { kind: 'remove-nic'; extId: string };

/**
 * The v3 intent of a disk or NIC change: the applied spec with that one device added, changed or removed, so the
 * update runs the v3 rules (a disk never shrinks, new devices get addresses, MACs and indexes, ...). An update keeps
 * what its body leaves out — a disk its data source, address and container, a NIC its MAC — and a NIC moved to
 * another subnet gets an address there unless the body asks for one.
 */
export function deviceIntent(vm: VmRecord, applied: VmSpec, change: V4DeviceChange): VmIntentInput {
  const disks = applied.resources.disk_list;
  const nics = applied.resources.nic_list;
  switch (change.kind) {
    case 'add-disk':
      return appliedIntent(vm, applied, { disk_list: [...disks, diskInput(withoutExtId(change.body), 0, 'DISK')] });
    case 'update-disk': {
      const previous = dataDisk(vm, disks, change.extId);
      const input = diskInput(change.body, 0, 'DISK');
      const updated: DiskSpec = {
        ...structuredClone(previous),
        ...(input.disk_size_bytes === undefined ? {} : { disk_size_mib: Math.ceil(input.disk_size_bytes / MIB), disk_size_bytes: input.disk_size_bytes }),
        ...(input.data_source_reference ? { data_source_reference: input.data_source_reference } : {}),
        ...(input.storage_config ? { storage_config: input.storage_config } : {}),
      };
      return appliedIntent(vm, applied, { disk_list: disks.map((disk) => (disk === previous ? updated : disk)) });
    }
    case 'remove-disk': {
      const previous = dataDisk(vm, disks, change.extId);
      return appliedIntent(vm, applied, { disk_list: disks.filter((disk) => disk !== previous) });
    }
    case 'add-nic':
      return appliedIntent(vm, applied, { nic_list: [...nics, nicInput(withoutExtId(change.body), 0)] });
    case 'update-nic': {
      const previous = nicOf(vm, nics, change.extId);
      const input = nicInput(change.body, 0);
      const updated = { ...structuredClone(previous), ...withoutUndefined({ ...input, uuid: previous.uuid }) } as NicSpec;
      const moved = input.subnet_reference !== undefined && input.subnet_reference.uuid !== previous.subnet_reference.uuid;
      if (moved && input.ip_endpoint_list === undefined) updated.ip_endpoint_list = [];
      return appliedIntent(vm, applied, { nic_list: nics.map((nic) => (nic === previous ? updated : nic)) });
    }
    case 'remove-nic': {
      const previous = nicOf(vm, nics, change.extId);
      return appliedIntent(vm, applied, { nic_list: nics.filter((nic) => nic !== previous) });
    }
  }
}

/** A device a client adds gets its extId from the server. */
function withoutExtId(body: unknown): unknown {
  if (!isObject(body)) return body;
  const { extId: _ignored, ...rest } = body;
  return rest;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function dataDisk(vm: VmRecord, disks: readonly DiskSpec[], extId: string): DiskSpec {
  const disk = disks.find((d) => d.uuid === extId.toLowerCase() && d.device_properties.device_type === 'DISK');
  if (!disk) throw new V4ApiError(404, 'VM_DISK_NOT_FOUND', 'VMM-30101', `Failed to perform the operation on the disk with UUID '${extId}' of the VM with UUID '${vm.uuid}', because it is not found.`);
  return disk;
}

function nicOf(vm: VmRecord, nics: readonly NicSpec[], extId: string): NicSpec {
  const nic = nics.find((n) => n.uuid === extId.toLowerCase());
  if (!nic) throw new V4ApiError(404, 'VM_NIC_NOT_FOUND', 'VMM-30102', `Failed to perform the operation on the NIC with UUID '${extId}' of the VM with UUID '${vm.uuid}', because it is not found.`);
  return nic;
}
