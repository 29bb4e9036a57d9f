// Turns a client's `spec` into the spec the server stores and shows: the defaults of the recorded GET
// filled in, disk and NIC uuids, `disk_size_bytes`, MAC and IP addresses assigned,
// references completed with names. A PUT is a full replace: what the client leaves out falls back to the
// defaults (a PUT without `nic_list` removes the NICs); only disks and NICs that carry their uuid keep
// their server-assigned values.
//
// Problems that only the server can judge (unknown cluster/image/subnet/storage container, a disk shrink, an
// exhausted IP pool) do not reject the request: they are returned for the task to fail with, the way pc.2022.1+
// reports such errors asynchronously.

import type { Cluster, Inventory, Subnet } from './inventory.ts';
import { allocateIpv4, isInRange, newMacAddress } from './nic-addresses.ts';
import { isPlainObject } from './schema-validation.ts';
import type { TaskFailure } from './tasks.ts';
import type { DiskInput, NicInput, VmIntentInput } from './vm-schema.ts';
import type { DiskSpec, IpEndpoint, NicSpec, Reference, VmResources, VmSpec } from './vm-store.ts';
import { NOT_SUPPORTED_ERROR_CODE } from './hotplug-rules.ts';

const MIB = 1024 * 1024;

/** Every default the recorded GET of a VM created with a minimal spec shows. */
const DEFAULT_RESOURCES: Readonly<Record<string, unknown>> = {
  apc_config: { enabled: false },
  num_sockets: 1,
  num_vcpus_per_socket: 1,
  num_threads_per_core: 1,
  memory_size_mib: 1024,
  memory_overcommit_enabled: false,
  gpu_console_enabled: false,
  is_vcpu_hard_pinned: false,
  power_state: 'OFF',
  power_state_mechanism: { mechanism: 'HARD', guest_transition_config: { enable_script_exec: false, should_fail_on_script_failure: false } },
  hardware_clock_timezone: 'UTC',
  is_agent_vm: false,
  disable_branding: false,
  enable_cpu_passthrough: false,
  machine_type: 'PC',
  hardware_virtualization_enabled: false,
  vtpm_config: { vtpm_enabled: false },
  disk_list: [],
  nic_list: [],
  gpu_list: [],
  boot_config: { boot_device_order_list: ['CDROM', 'DISK', 'NETWORK'], boot_type: 'LEGACY' },
  vga_console_enabled: true,
  vnuma_config: { num_vnuma_nodes: 0 },
  serial_port_list: [],
  cpu_hotplug_enabled: true,
  scsi_controller_enabled: true,
};

export interface SpecBuildContext {
  inventory: Inventory;
  /** The VM's applied spec when this is an update; undefined for a create. */
  previous: VmSpec | undefined;
  /** Learned (DHCP) IPs the VM's NICs already have, by NIC uuid. */
  previousLearnedIps: ReadonlyMap<string, string>;
  /** IPs and MACs held by other VMs. */
  ipsInUse: ReadonlySet<string>;
  macsInUse: ReadonlySet<string>;
  newUuid: () => string;
}

export interface SpecBuildResult {
  spec: VmSpec;
  learnedIps: Map<string, string>;
  /** Reasons the task must fail, first one wins. */
  problems: TaskFailure[];
}

export function buildVmSpec(input: VmIntentInput['spec'], context: SpecBuildContext): SpecBuildResult {
  const problems: TaskFailure[] = [];
  const cluster = resolveCluster(input.cluster_reference, context, problems);
  const { disk_list: diskInputs = [], nic_list: nicInputs = [], ...otherResources } = input.resources;
  const learnedIps = new Map<string, string>();
  // The defaults hold every typed key of VmResources, and the schema checked the client's values.
  const resources = {
    ...withDefaults(DEFAULT_RESOURCES, otherResources),
    disk_list: buildDisks(diskInputs, context, cluster.known, problems),
    nic_list: buildNics(nicInputs, context, cluster.known?.uuid, learnedIps, problems),
  } as VmResources;
  const { name, description, cluster_reference: _given, resources: _resources, ...otherSpec } = input;
  const spec: VmSpec = { ...structuredClone(otherSpec), name, ...(description === undefined ? {} : { description }), cluster_reference: cluster.reference, resources };
  return { spec, learnedIps, problems };
}

interface ResolvedCluster {
  reference: Reference;
  /** Undefined when the VM names a cluster the simulator does not know. */
  known: Cluster | undefined;
}

function resolveCluster(given: Reference | undefined, context: SpecBuildContext, problems: TaskFailure[]): ResolvedCluster {
  const uuid = given?.uuid ?? context.previous?.cluster_reference.uuid ?? context.inventory.defaultCluster.uuid;
  const cluster = context.inventory.cluster(uuid);
  if (!cluster) {
    // The Prism Central's own cluster entity is listed with the clusters but hosts no VMs (unverified how a real
    // PC words this; it cannot place a VM there).
    const { prismCentral } = context.inventory;
    if (context.inventory.isPrismCentral(uuid)) problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: `INVALID_ARGUMENT: Cluster ${prismCentral.name} (${prismCentral.uuid}) is the Prism Central (service_list PRISM_CENTRAL), not an AHV cluster that can run VMs` });
    else problems.push(notFound('Cluster', uuid));
    return { reference: { kind: 'cluster', uuid, ...(given?.name === undefined ? {} : { name: given.name }) }, known: undefined };
  }
  if (context.previous && context.previous.cluster_reference.uuid !== uuid) {
    problems.push({ errorCode: NOT_SUPPORTED_ERROR_CODE, errorDetail: `NotSupported: A VM cannot be moved to another cluster by an update (${context.previous.cluster_reference.uuid} -> ${uuid})` });
  }
  return { reference: { kind: 'cluster', name: cluster.name, uuid: cluster.uuid }, known: cluster };
}

/** `cluster` is undefined when the VM's cluster is unknown (already a problem of its own). */
function buildDisks(inputs: readonly DiskInput[], context: SpecBuildContext, cluster: Cluster | undefined, problems: TaskFailure[]): DiskSpec[] {
  const previousDisks = context.previous?.resources.disk_list ?? [];
  const taken = new Map<string, Set<number>>();
  const take = (adapter: string, index: number): void => {
    const used = taken.get(adapter) ?? new Set<number>();
    used.add(index);
    taken.set(adapter, used);
  };
  const planned = inputs.map((input) => {
    const previous = input.uuid === undefined ? undefined : previousDisks.find((d) => d.uuid === input.uuid);
    if (input.uuid !== undefined && !previous) problems.push(notFound('Disk', input.uuid));
    const deviceType = input.device_properties?.device_type ?? previous?.device_properties.device_type ?? 'DISK';
    const adapter = input.device_properties?.disk_address?.adapter_type ?? previous?.device_properties.disk_address.adapter_type ?? (deviceType === 'CDROM' ? 'IDE' : 'SCSI');
    const index = input.device_properties?.disk_address?.device_index ?? previous?.device_properties.disk_address.device_index;
    if (index !== undefined) take(adapter, index);
    return { input, previous, deviceType, adapter, index };
  });
  return planned.map(({ input, previous, deviceType, adapter, index }) => {
    let deviceIndex = index ?? 0;
    if (index === undefined) {
      const used = taken.get(adapter) ?? new Set<number>();
      while (used.has(deviceIndex)) deviceIndex += 1;
      take(adapter, deviceIndex);
    }
    const address = `${adapter.toLowerCase()}.${deviceIndex}`;
    const source = input.data_source_reference;
    const image = source?.kind === 'image' ? context.inventory.image(source.uuid) : undefined;
    if (source?.kind === 'image' && !image) problems.push(notFound('Image', source.uuid));
    if (source?.kind === 'vm_disk') problems.push({ errorCode: NOT_SUPPORTED_ERROR_CODE, errorDetail: `NotSupported: the simulator does not clone vm_disk data sources (disk at ${address})` });
    const sizeMib = input.disk_size_mib
      ?? (input.disk_size_bytes === undefined ? undefined : Math.ceil(input.disk_size_bytes / MIB))
      ?? previous?.disk_size_mib
      ?? (image ? Math.ceil(image.sizeBytes / MIB) : undefined);
    if (deviceType === 'DISK' && sizeMib === undefined && source === undefined) {
      problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: `INVALID_ARGUMENT: Disk at ${address} needs disk_size_mib or a data_source_reference` });
    }
    if (previous?.disk_size_mib !== undefined && sizeMib !== undefined && sizeMib < previous.disk_size_mib) {
      problems.push({ errorCode: NOT_SUPPORTED_ERROR_CODE, errorDetail: `NotSupported: Can't shrink disk at ${address} from ${previous.disk_size_mib} MiB to ${sizeMib} MiB` });
    }
    const [defaultContainer] = cluster?.storageContainers ?? [];
    const storageConfig = input.storage_config ?? previous?.storage_config
      ?? (deviceType === 'DISK' && defaultContainer ? { storage_container_reference: { kind: 'storage_container', ...defaultContainer } } : undefined);
    if (input.storage_config !== undefined && previous === undefined) checkStorageContainer(storageConfig, cluster, context.inventory, address, problems);
    const disk: DiskSpec = {
      ...structuredClone(input),
      uuid: previous?.uuid ?? context.newUuid(),
      device_properties: { ...structuredClone(input.device_properties), device_type: deviceType, disk_address: { adapter_type: adapter, device_index: deviceIndex } },
    };
    if (sizeMib === undefined) {
      delete disk.disk_size_mib;
      delete disk.disk_size_bytes;
    } else {
      disk.disk_size_mib = sizeMib;
      disk.disk_size_bytes = sizeMib * MIB;
    }
    if (storageConfig !== undefined) disk.storage_config = structuredClone(storageConfig);
    return disk;
  });
}

/** `clusterUuid` is undefined when the VM's cluster is unknown (already a problem of its own). */
function buildNics(inputs: readonly NicInput[], context: SpecBuildContext, clusterUuid: string | undefined, learnedIps: Map<string, string>, problems: TaskFailure[]): NicSpec[] {
  const previousNics = context.previous?.resources.nic_list ?? [];
  const ipsTaken = new Set(context.ipsInUse);
  const macsTaken = new Set(context.macsInUse);
  // Addresses the VM keeps (asked for, or held by a NIC it keeps) must not go to its own new NICs.
  for (const input of inputs) {
    for (const endpoint of input.ip_endpoint_list ?? []) if (endpoint.ip !== undefined) ipsTaken.add(endpoint.ip);
    const kept = previousNics.find((n) => n.uuid === input.uuid);
    for (const endpoint of kept?.ip_endpoint_list ?? []) ipsTaken.add(endpoint.ip);
  }
  for (const ip of context.previousLearnedIps.values()) ipsTaken.add(ip);
  return inputs.map((input) => {
    const previous = input.uuid === undefined ? undefined : previousNics.find((n) => n.uuid === input.uuid);
    if (input.uuid !== undefined && !previous) problems.push(notFound('NIC', input.uuid));
    const uuid = previous?.uuid ?? context.newUuid();
    const subnetUuid = input.subnet_reference?.uuid ?? previous?.subnet_reference.uuid;
    const subnet = subnetUuid === undefined ? undefined : context.inventory.subnet(subnetUuid);
    if (subnetUuid === undefined) problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: 'INVALID_ARGUMENT: Every NIC needs a subnet_reference' });
    else if (!subnet) problems.push(notFound('Subnet', subnetUuid));
    else if (clusterUuid !== undefined && subnet.clusterUuid !== undefined && subnet.clusterUuid !== clusterUuid) problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: `INVALID_ARGUMENT: Subnet ${subnet.name} (${subnet.uuid}) is not on cluster ${clusterUuid}` });

    const mac = (input.mac_address ?? previous?.mac_address ?? newMacAddress(macsTaken)).toLowerCase();
    macsTaken.add(mac);
    const requested = (input.ip_endpoint_list ?? []).flatMap((e) => (e.ip === undefined ? [] : [{ ...structuredClone(e), ip: e.ip, type: e.type ?? 'ASSIGNED' } satisfies IpEndpoint]));
    let endpoints = requested;
    if (subnet?.ipam) endpoints = ipamEndpoints(subnet, requested, previous, context.ipsInUse, ipsTaken, problems);
    else if (subnet) {
      const learned = previous?.subnet_reference.uuid === subnet.uuid ? context.previousLearnedIps.get(uuid) : undefined;
      const ip = learned ?? allocateIpv4(subnet.range, ipsTaken);
      if (ip !== undefined) {
        ipsTaken.add(ip);
        learnedIps.set(uuid, ip);
      }
    }
    const subnetReference: Reference = subnet ? { kind: 'subnet', name: subnet.name, uuid: subnet.uuid } : { kind: 'subnet', uuid: subnetUuid ?? '' };
    return {
      nic_type: 'NORMAL_NIC',
      vlan_mode: 'ACCESS',
      trunked_vlan_list: [],
      num_queues: 1,
      ...structuredClone(input),
      uuid,
      mac_address: mac,
      ip_endpoint_list: endpoints,
      subnet_reference: subnetReference,
      is_connected: input.is_connected ?? previous?.is_connected ?? true,
    };
  });
}

/** IPAM subnets give each NIC an `ASSIGNED` address: the one asked for, the one it had, or a free one. */
function ipamEndpoints(subnet: Subnet, requested: IpEndpoint[], previous: NicSpec | undefined, ipsOfOtherVms: ReadonlySet<string>, ipsTaken: Set<string>, problems: TaskFailure[]): IpEndpoint[] {
  if (requested.length > 0) {
    for (const { ip } of requested) {
      if (!isInRange(ip, subnet.range)) problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: `INVALID_ARGUMENT: IP address ${ip} is not in subnet ${subnet.name} (${subnet.cidr})` });
      else if (ipsOfOtherVms.has(ip)) problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: `INVALID_ARGUMENT: IP address ${ip} is already in use in subnet ${subnet.name}` });
    }
    return requested;
  }
  if (previous?.subnet_reference.uuid === subnet.uuid && previous.ip_endpoint_list.length > 0) return structuredClone(previous.ip_endpoint_list);
  const ip = allocateIpv4(subnet.range, ipsTaken);
  if (ip === undefined) {
    problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: `INVALID_ARGUMENT: No free IP address left in subnet ${subnet.name} (${subnet.cidr})` });
    return [];
  }
  ipsTaken.add(ip);
  return [{ ip, type: 'ASSIGNED' }];
}

/**
 * A new disk's `storage_config.storage_container_reference` must name a container of the VM's cluster (a disk lives on
 * its cluster's storage); the reference is completed with the container's name, as other references are. Whether a
 * real PC fails the task or answers synchronously is unverified; the simulator fails the task, like other references.
 */
function checkStorageContainer(storageConfig: unknown, cluster: Cluster | undefined, inventory: Inventory, address: string, problems: TaskFailure[]): void {
  const reference = isPlainObject(storageConfig) && isPlainObject(storageConfig.storage_container_reference) ? storageConfig.storage_container_reference : undefined;
  if (typeof reference?.uuid !== 'string') return;
  const container = inventory.storageContainer(reference.uuid);
  if (container === undefined) problems.push(notFound('Storage container', reference.uuid));
  else if (cluster !== undefined && container.cluster.uuid !== cluster.uuid) {
    problems.push({ errorCode: 'INVALID_ARGUMENT', errorDetail: `INVALID_ARGUMENT: Storage container ${container.name} (${container.uuid}) of disk at ${address} is not on cluster ${cluster.uuid}` });
  } else {
    reference.name = container.name;
    reference.uuid = container.uuid;
  }
}

function notFound(what: string, uuid: string): TaskFailure {
  return { errorCode: 'ENTITY_NOT_FOUND', errorDetail: `ENTITY_NOT_FOUND: ${what} with uuid ${uuid} does not exist` };
}

/** Deep-merges client values over defaults; arrays and scalars from the client replace the default. */
function withDefaults(defaults: Readonly<Record<string, unknown>>, input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const merged = structuredClone(defaults) as Record<string, unknown>;
  for (const [key, value] of Object.entries(input)) {
    const fallback = merged[key];
    merged[key] = isPlainObject(fallback) && isPlainObject(value) ? withDefaults(fallback, value) : structuredClone(value);
  }
  return merged;
}
