/**
 * The operator's own picture of a VM, in the terms of the AhvVm rather than of either Prism API: what a resource asks
 * for (`DesiredVm`) and what Prism shows (`ObservedVm`). The diff, the plan and the status are made from these, so they
 * are the same whichever API is in use; `prism/v3` and `prism/v4` translate their wire shapes to and from them.
 *
 * References (cluster, image, subnet, storage container) are UUIDs — v4's extIds are the same values — lower-cased by whoever built them.
 */

export type PowerState = 'ON' | 'OFF';

/** A disk the resource asks for: from an image, of a size, or both; on a storage container of its own, or the cluster's default. */
export interface DesiredDisk {
  imageUuid?: string;
  /**
   * The image is the newest one an `image_lookup` matches now: a new disk is made from it, but a disk made from an
   * older match is not compared with it (it is never re-imaged because a newer image was uploaded).
   */
  imageFromLookup?: boolean;
  sizeMib?: number;
  /** Where a new disk is made; an existing disk on another container is an impossible change (it is never moved). */
  storageContainerUuid?: string;
}

/** A GPU as a create attaches it (v3 `gpu_list` entry, v4 `vmm.v4.ahv.config.Gpu`), found free on the VM's cluster. */
export interface DesiredGpu {
  mode: 'PASSTHROUGH_GRAPHICS' | 'PASSTHROUGH_COMPUTE' | 'VIRTUAL';
  /** The VM API's vendor: NVIDIA, INTEL, AMD (UNKNOWN when the cluster names another). */
  vendor: string;
  deviceId: number;
  name?: string;
}

const GPU_MODES: readonly string[] = ['PASSTHROUGH_GRAPHICS', 'PASSTHROUGH_COMPUTE', 'VIRTUAL'];

export function isGpuMode(mode: unknown): mode is DesiredGpu['mode'] {
  return typeof mode === 'string' && GPU_MODES.includes(mode);
}

/** A GPU an AhvVm asks for, as CAPX's NutanixGPU: by device id or by device name. */
export type GpuRequest = { deviceId: number; name?: undefined } | { name: string; deviceId?: undefined };

export interface DesiredNic {
  subnetUuid: string;
}

/**
 * The VM an AhvVm asks for. A field left undefined is not managed: whatever the VM has there is left alone. The size
 * is always managed (the AhvVm's defaults are the seed's).
 */
export interface DesiredVm {
  name: string;
  /** The user's description with the ownership marker as its last line. */
  description: string;
  clusterUuid: string;
  /** The project the VM is created in; set at creation only (the AhvVm's CEL keeps it unchanged), never compared. */
  projectUuid?: string;
  numSockets: number;
  numVcpusPerSocket: number;
  memoryMib: number;
  powerState?: PowerState;
  bootType?: string;
  categories?: Record<string, string>;
  disks?: DesiredDisk[];
  nics?: DesiredNic[];
  /** GPUs found free for the create; for the create only (the AhvVm's CEL keeps its gpus unchanged), never compared. */
  gpus?: DesiredGpu[];
  /** base64 cloud-init user data; for the create only, as Prism applies it only then. */
  cloudInitUserData?: string;
}

/** A data disk as Prism shows it (CD-ROMs are not disks here: the AhvVm's `disks` never count them). */
export interface ObservedDisk {
  /** The disk's UUID (v4: extId), which a change of this disk names. */
  id?: string;
  imageUuid?: string;
  sizeMib?: number;
  storageContainerUuid?: string;
}

export interface ObservedNic {
  id?: string;
  subnetUuid?: string;
}

/**
 * A VM as Prism shows it. Where v3's `spec` (the latest accepted change) and `status` (what was applied) can differ
 * while a task runs, the size, devices and names are the spec's and the power state is the status's: it decides what
 * can change live.
 */
export interface ObservedVm {
  uuid: string;
  name: string;
  description?: string;
  clusterUuid?: string;
  numSockets?: number;
  numVcpusPerSocket?: number;
  memoryMib?: number;
  /** The power state as Prism reports it (`ON`, `OFF`, `PAUSED` …; `UNKNOWN` when it reports none). */
  powerState: string;
  bootType?: string;
  categories: Record<string, string>;
  disks: ObservedDisk[];
  nics: ObservedNic[];
  /** The NICs' addresses in NIC order, assigned and learned, without repeats. */
  ipAddresses: string[];
  /** PENDING, RUNNING, COMPLETE, ERROR, DELETE_PENDING … (v4 has no such state: always COMPLETE). */
  state: string;
  /** What Prism says about the state (v3's `message_list`), for a VM in ERROR. */
  stateMessages?: string[];
  /** v3 only; v4 versions a VM by ETag. */
  specVersion?: number;
}

/** The power state the VM is in: a VM Prism reports as neither ON nor OFF is treated as OFF. */
export function actualPowerState(vm: Pick<ObservedVm, 'powerState'>): PowerState {
  return vm.powerState === 'ON' ? 'ON' : 'OFF';
}

/** Prism states in which a task is still changing the VM; nothing else should be sent until they end. */
export const BUSY_VM_STATES: readonly string[] = ['PENDING', 'RUNNING', 'DELETE_PENDING'];

/** Addresses in the order given, without repeats or blanks. */
export function distinctAddresses(addresses: Iterable<string | undefined>): string[] {
  return [...new Set([...addresses].filter((ip): ip is string => typeof ip === 'string' && ip !== ''))];
}
