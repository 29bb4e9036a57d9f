import { actualPowerState, type DesiredDisk, type DesiredNic, type DesiredVm, type ObservedDisk, type ObservedNic, type ObservedVm, type PowerState } from './vm-model.ts';

/**
 * How a VM differs from what its AhvVm asks for, sorted by what applying each difference takes. The rules are AHV's
 * as the Terraform provider and the Ansible modules apply them, and as the simulator enforces them:
 *
 * - on a VM that is ON, more sockets, more memory, added or grown disks, NIC changes, name, description and
 *   categories apply live (`hotPlug`); fewer sockets, less memory, any change of vCPUs per socket and a new boot type
 *   need the VM off (`powerCycle`);
 * - on a VM that is OFF, all of these are `hotPlug`: nothing needs to be powered off;
 * - whatever the power state, some changes cannot be made by an update at all (`impossible`): moving to another
 *   cluster, shrinking a disk (Prism refuses it), re-imaging a disk or moving it to another storage container, and
 *   removing a disk (the operator refuses that: it would delete data because a list got shorter). A disk whose image
 *   an `image_lookup` chose is not compared by image: a newer match applies to new disks only;
 * - `power` is a change of power state the resource asks for.
 *
 * Each disk and NIC change also says which device it is (`device`), so that an API that changes devices one request at
 * a time (v4) picks its next request from this diff instead of comparing the VM again.
 *
 * Fields the desired VM leaves out are not managed and never differ. cloud-init is never compared: Prism applies it only
 * when it creates a VM.
 */

/** A disk or NIC change, with the device it applies to (`id`: its UUID or extId as read). */
export type DeviceChange =
  | { kind: 'add-disk'; disk: DesiredDisk }
  | { kind: 'grow-disk'; id: string | undefined; sizeMib: number }
  | { kind: 'add-nic'; nic: DesiredNic }
  | { kind: 'move-nic'; id: string | undefined; nic: DesiredNic }
  | { kind: 'remove-nic'; id: string | undefined };

export interface FieldChange {
  /** Spec path in the AhvVm's terms, e.g. `num_sockets`, `disks[1].size_mib`, `nics[0].subnet`. */
  field: string;
  from: unknown;
  to: unknown;
  /** For impossible changes: why. */
  why?: string;
  /** For disk and NIC changes that can be made: which device, and how. */
  device?: DeviceChange;
}

export interface VmDiff {
  hotPlug: FieldChange[];
  powerCycle: FieldChange[];
  impossible: FieldChange[];
  power: { from: PowerState; to: PowerState } | undefined;
  /** True when the VM is exactly as asked. */
  none: boolean;
}

/** The diff of a VM that is as asked: what a step sent to a VM in sync (one in ERROR, to clear it) goes with. */
export const NO_CHANGES: VmDiff = Object.freeze({ hotPlug: [], powerCycle: [], impossible: [], power: undefined, none: true });

export function diffVm(current: ObservedVm, desired: DesiredVm): VmDiff {
  const powerNow = actualPowerState(current);
  const isOn = powerNow === 'ON';
  const hotPlug: FieldChange[] = [];
  const powerCycle: FieldChange[] = [];
  const impossible: FieldChange[] = [];
  /** A change that is live on a running VM when `liveWhenOn`, and always live on a stopped one. */
  const change = (field: string, from: unknown, to: unknown, liveWhenOn: boolean): void => {
    (liveWhenOn || !isOn ? hotPlug : powerCycle).push({ field, from, to });
  };

  if (current.name !== desired.name) change('name', current.name, desired.name, true);
  if ((current.description ?? '') !== desired.description) change('description', current.description, desired.description, true);
  if (desired.categories !== undefined && !sameStringMap(current.categories, desired.categories)) {
    change('categories', current.categories, desired.categories, true);
  }

  if (current.clusterUuid !== undefined && desired.clusterUuid.toLowerCase() !== current.clusterUuid.toLowerCase()) {
    impossible.push({ field: 'cluster', from: current.clusterUuid, to: desired.clusterUuid, why: 'Prism cannot move a VM to another cluster' });
  }

  // The desired VM always sizes the VM (the AhvVm's defaults are applied with its spec); Prism reports every VM's size.
  const resize = (field: string, from: number | undefined, to: number, growsLive: boolean): void => {
    if (from === to) return;
    change(field, from, to, growsLive && from !== undefined && to > from);
  };
  resize('num_sockets', current.numSockets, desired.numSockets, true);
  resize('num_vcpus_per_socket', current.numVcpusPerSocket, desired.numVcpusPerSocket, false);
  resize('memory_size_mib', current.memoryMib, desired.memoryMib, true);

  if (desired.bootType !== undefined && desired.bootType !== (current.bootType ?? 'LEGACY')) {
    change('boot_type', current.bootType, desired.bootType, false);
  }

  if (desired.disks !== undefined) diffDisks(current.disks, desired.disks, hotPlug, impossible);

  if (desired.nics !== undefined) diffNics(current.nics, desired.nics, hotPlug);

  const power = desired.powerState !== undefined && desired.powerState !== powerNow ? { from: powerNow, to: desired.powerState } : undefined;
  const none = hotPlug.length === 0 && powerCycle.length === 0 && impossible.length === 0 && power === undefined;
  return { hotPlug, powerCycle, impossible, power, none };
}

function diffDisks(have: readonly ObservedDisk[], want: readonly DesiredDisk[], hotPlug: FieldChange[], impossible: FieldChange[]): void {
  want.forEach((disk, index) => {
    const existing = have[index];
    if (existing === undefined) {
      hotPlug.push({ field: `disks[${index}]`, from: undefined, to: { image: disk.imageUuid, size_mib: disk.sizeMib, storage_container: disk.storageContainerUuid }, device: { kind: 'add-disk', disk } });
      return;
    }
    if (disk.imageUuid !== undefined && disk.imageFromLookup !== true && disk.imageUuid.toLowerCase() !== existing.imageUuid?.toLowerCase()) {
      impossible.push({ field: `disks[${index}].image`, from: existing.imageUuid, to: disk.imageUuid, why: 'an existing disk cannot be re-imaged' });
    }
    const container = disk.storageContainerUuid;
    if (container !== undefined && existing.storageContainerUuid !== undefined && container.toLowerCase() !== existing.storageContainerUuid.toLowerCase()) {
      impossible.push({ field: `disks[${index}].storage_container`, from: existing.storageContainerUuid, to: container, why: 'the operator never moves an existing disk to another storage container' });
    }
    const from = existing.sizeMib;
    const to = disk.sizeMib;
    if (to === undefined || from === undefined || to === from) return;
    if (to > from) hotPlug.push({ field: `disks[${index}].size_mib`, from, to, device: { kind: 'grow-disk', id: existing.id, sizeMib: to } });
    else impossible.push({ field: `disks[${index}].size_mib`, from, to, why: 'Prism cannot shrink a disk' });
  });
  have.slice(want.length).forEach((disk, offset) => {
    impossible.push({
      field: `disks[${want.length + offset}]`,
      from: { uuid: disk.id, size_mib: disk.sizeMib },
      to: undefined,
      why: 'the operator never removes a disk (its data would be lost); detach it in Prism if that is intended',
    });
  });
}

/** NICs matched by position: a different subnet replaces the NIC; extra ones are removed, missing ones added. */
function diffNics(have: readonly ObservedNic[], want: readonly DesiredNic[], hotPlug: FieldChange[]): void {
  want.forEach((nic, index) => {
    const existing = have[index];
    const to = nic.subnetUuid;
    if (existing === undefined) hotPlug.push({ field: `nics[${index}]`, from: undefined, to: { subnet: to }, device: { kind: 'add-nic', nic } });
    else if (existing.subnetUuid !== to) {
      hotPlug.push({ field: `nics[${index}].subnet`, from: existing.subnetUuid, to, device: { kind: 'move-nic', id: existing.id, nic } });
    }
  });
  have.slice(want.length).forEach((nic, offset) => {
    hotPlug.push({ field: `nics[${want.length + offset}]`, from: { subnet: nic.subnetUuid }, to: undefined, device: { kind: 'remove-nic', id: nic.id } });
  });
}

function sameStringMap(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}
