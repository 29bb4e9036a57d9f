// The VMs the simulator holds, in every phase of their life, and the facts the rest of the server needs
// about all of them at once (addresses in use, UUIDs ever used).

export interface Reference {
  kind: string;
  uuid: string;
  name?: string;
}

export interface IpEndpoint {
  ip: string;
  type: 'ASSIGNED' | 'LEARNED';
  [key: string]: unknown;
}

export interface DiskSpec {
  uuid: string;
  device_properties: { device_type: 'DISK' | 'CDROM'; disk_address: { adapter_type: string; device_index: number }; [key: string]: unknown };
  disk_size_mib?: number;
  disk_size_bytes?: number;
  data_source_reference?: Reference;
  [key: string]: unknown;
}

export interface NicSpec {
  uuid: string;
  mac_address: string;
  subnet_reference: Reference;
  ip_endpoint_list: IpEndpoint[];
  is_connected: boolean;
  [key: string]: unknown;
}

export interface VmResources {
  num_sockets: number;
  num_vcpus_per_socket: number;
  num_threads_per_core: number;
  memory_size_mib: number;
  power_state: 'ON' | 'OFF';
  disk_list: DiskSpec[];
  nic_list: NicSpec[];
  [key: string]: unknown;
}

/** A VM spec as the server stores and shows it: defaults filled in, server-assigned ids present. */
export interface VmSpec {
  name: string;
  description?: string;
  cluster_reference: Reference;
  resources: VmResources;
  [key: string]: unknown;
}

/** The parts of `metadata` a client may set and the server keeps. */
export interface VmClientMetadata {
  /** The keys with exactly one value (what `metadata.categories` shows). */
  categories: Record<string, string>;
  /** Every assigned value by key (what `metadata.categories_mapping` shows). */
  categoriesMapping: Record<string, string[]>;
  project_reference: Reference;
  owner_reference: Reference;
}

/** `creating`: the create task has not succeeded yet; `deleting`: a delete was accepted. */
export type VmPhase = 'creating' | 'ready' | 'deleting';

/** `status.state` values seen on real VMs, plus DELETE_PENDING while a delete runs. */
export type VmState = 'PENDING' | 'RUNNING' | 'COMPLETE' | 'ERROR' | 'DELETE_PENDING';

export interface StatusMessage {
  reason: string;
  message: string;
}

export interface VmRecord {
  readonly uuid: string;
  phase: VmPhase;
  state: VmState;
  /** Set after a failed update or delete; kept until a later update succeeds (TF issue #131). */
  messageList: StatusMessage[];
  /** What GET shows as `spec`: the latest accepted intent. */
  spec: VmSpec;
  /** The last spec a task applied successfully; `status` is built from it. Undefined while creating. */
  applied: VmSpec | undefined;
  metadata: VmClientMetadata;
  /** The metadata of an accepted update whose task has not finished; it becomes `metadata` when it succeeds. */
  pendingMetadata: VmClientMetadata | undefined;
  specVersion: number;
  entityVersion: number;
  creationTime: number;
  lastUpdateTime: number;
  /** The latest task that ran or runs on this VM (GET shows it as `execution_context.task_uuid[0]`). */
  lastTaskUuid: string;
  /** Tasks accepted for this VM that have not finished; updates are refused while this is non-zero. */
  tasksInFlight: number;
  deleteTaskUuid: string | undefined;
  /** NIC uuid -> the address an external DHCP server gives that NIC once the guest runs. */
  learnedIps: Map<string, string>;
  /** Monotonic time (performance.now) of the last power-on, or undefined while OFF. */
  poweredOnAt: number | undefined;
  generationUuid: string;
  /** v4 custom attributes (`providerid:<extId>` is CAPX's); v3 has no such field and does not show them. */
  customAttributes: string[];
}

export class VmStore {
  private readonly records = new Map<string, VmRecord>();
  /** UUIDs that once belonged to a successfully created VM: an idempotence UUID is good for one VM. */
  private readonly usedUuids = new Set<string>();

  insert(record: VmRecord): void {
    this.records.set(record.uuid, record);
  }

  get(uuid: string): VmRecord | undefined {
    return this.records.get(uuid);
  }

  remove(uuid: string): void {
    this.records.delete(uuid);
  }

  markCreated(uuid: string): void {
    this.usedUuids.add(uuid);
  }

  isUuidTaken(uuid: string): boolean {
    return this.records.has(uuid) || this.usedUuids.has(uuid);
  }

  /** Every VM, in creation order, including ones still being created. */
  all(): VmRecord[] {
    return [...this.records.values()];
  }

  /** VMs a list call returns: "entities that have not been created successfully are not listed". */
  listable(): VmRecord[] {
    return this.all().filter((vm) => vm.phase !== 'creating');
  }

  /** IPs held by VMs other than `exceptUuid`, in their intent, their applied spec or learned by DHCP. */
  ipsInUse(exceptUuid?: string): Set<string> {
    const ips = new Set<string>();
    for (const vm of this.records.values()) {
      if (vm.uuid === exceptUuid) continue;
      for (const spec of [vm.spec, vm.applied]) {
        for (const nic of spec?.resources.nic_list ?? []) for (const endpoint of nic.ip_endpoint_list) ips.add(endpoint.ip);
      }
      for (const ip of vm.learnedIps.values()) ips.add(ip);
    }
    return ips;
  }

  /** Names of the VMs that carry `key: value`, applied or in an update still running. */
  carriersOf(key: string, value: string): string[] {
    const carries = (metadata: VmClientMetadata | undefined): boolean => metadata?.categoriesMapping[key]?.includes(value) === true;
    return this.all().filter((vm) => carries(vm.metadata) || carries(vm.pendingMetadata)).map((vm) => (vm.applied ?? vm.spec).name);
  }

  macsInUse(): Set<string> {
    const macs = new Set<string>();
    for (const vm of this.records.values()) {
      for (const spec of [vm.spec, vm.applied]) for (const nic of spec?.resources.nic_list ?? []) macs.add(nic.mac_address.toLowerCase());
    }
    return macs;
  }
}
