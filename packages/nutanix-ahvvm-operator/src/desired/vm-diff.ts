import type { PrismDisk, PrismNic, PrismPowerState, PrismVm, PrismVmIntent } from '../prism/prism-types.ts';
import { actualPowerState } from './observed-vm.ts';

/**
 * How a VM differs from what its AhvVm asks for, sorted by what applying each difference takes. The rules are AHV's
 * as the Terraform provider and the Ansible modules apply them, and as the simulator enforces them:
 *
 * - on a VM that is ON, more sockets, more memory, added or grown disks, NIC changes, name, description and
 *   categories apply live (`hotPlug`); fewer sockets, less memory, any change of vCPUs per socket and a new boot type
 *   need the VM off (`powerCycle`);
 * - on a VM that is OFF, all of these are `hotPlug`: nothing needs to be powered off;
 * - whatever the power state, some changes cannot be made by an update at all (`impossible`): moving to another
 *   cluster, shrinking a disk (Prism refuses it), re-imaging a disk, and removing a disk (the operator refuses that:
 *   it would delete data because a list got shorter);
 * - `power` is a change of power state the resource asks for.
 *
 * Fields the intent leaves out are not managed and never differ. cloud-init is never compared: Prism applies it only
 * when it creates a VM.
 */

export interface FieldChange {
  /** Spec path in the AhvVm's terms, e.g. `num_sockets`, `disks[1].size_mib`, `nics[0].subnet`. */
  field: string;
  from: unknown;
  to: unknown;
  /** For impossible changes: why. */
  why?: string;
}

export interface VmDiff {
  hotPlug: FieldChange[];
  powerCycle: FieldChange[];
  impossible: FieldChange[];
  power: { from: PrismPowerState; to: PrismPowerState } | undefined;
  /** True when the VM is exactly as asked. */
  none: boolean;
}

const MIB = 1024 * 1024;

export function diffVm(current: PrismVm, desired: PrismVmIntent): VmDiff {
  const isOn = actualPowerState(current) === 'ON';
  const hotPlug: FieldChange[] = [];
  const powerCycle: FieldChange[] = [];
  const impossible: FieldChange[] = [];
  /** A change that is live on a running VM when `liveWhenOn`, and always live on a stopped one. */
  const change = (field: string, from: unknown, to: unknown, liveWhenOn: boolean): void => {
    (liveWhenOn || !isOn ? hotPlug : powerCycle).push({ field, from, to });
  };
  const have = current.spec.resources;
  const want = desired.spec.resources;

  if (current.spec.name !== desired.spec.name) change('name', current.spec.name, desired.spec.name, true);
  if ((current.spec.description ?? '') !== (desired.spec.description ?? '')) {
    change('description', current.spec.description, desired.spec.description, true);
  }
  if (desired.metadata.categories !== undefined && !sameStringMap(current.metadata.categories ?? {}, desired.metadata.categories)) {
    change('categories', current.metadata.categories ?? {}, desired.metadata.categories, true);
  }

  const wantCluster = desired.spec.cluster_reference?.uuid;
  const haveCluster = current.spec.cluster_reference?.uuid;
  if (wantCluster !== undefined && haveCluster !== undefined && wantCluster.toLowerCase() !== haveCluster.toLowerCase()) {
    impossible.push({ field: 'cluster', from: haveCluster, to: wantCluster, why: 'Prism cannot move a VM to another cluster' });
  }

  // The intent always sizes the VM (its defaults are applied with the spec's); Prism reports every VM's size.
  const resize = (field: 'num_sockets' | 'num_vcpus_per_socket' | 'memory_size_mib', growsLive: boolean): void => {
    const from = have[field];
    const to = want[field];
    if (to === undefined || from === to) return;
    change(field, from, to, growsLive && from !== undefined && to > from);
  };
  resize('num_sockets', true);
  resize('num_vcpus_per_socket', false);
  resize('memory_size_mib', true);

  const wantBoot = want.boot_config?.boot_type;
  if (wantBoot !== undefined && wantBoot !== (have.boot_config?.boot_type ?? 'LEGACY')) {
    change('boot_type', have.boot_config?.boot_type, wantBoot, false);
  }

  if (want.disk_list !== undefined) diffDisks(dataDisks(have.disk_list ?? []), want.disk_list, hotPlug, impossible);

  if (want.nic_list !== undefined) diffNics(have.nic_list ?? [], want.nic_list, hotPlug);

  const powerNow = actualPowerState(current);
  const powerWanted: PrismPowerState | undefined = want.power_state === 'ON' || want.power_state === 'OFF' ? want.power_state : undefined;
  const power = powerWanted !== undefined && powerWanted !== powerNow ? { from: powerNow, to: powerWanted } : undefined;
  const none = hotPlug.length === 0 && powerCycle.length === 0 && impossible.length === 0 && power === undefined;
  return { hotPlug, powerCycle, impossible, power, none };
}

/** Disks as opposed to CD-ROMs (a disk without device_properties is a DISK, Prism's default). */
export function isDataDisk(disk: PrismDisk): boolean {
  return (disk.device_properties?.device_type ?? 'DISK') === 'DISK';
}

/** A disk's size in MiB, from `disk_size_mib` or, failing that, `disk_size_bytes`. */
export function diskSizeMib(disk: PrismDisk): number | undefined {
  if (disk.disk_size_mib !== undefined) return disk.disk_size_mib;
  return disk.disk_size_bytes === undefined ? undefined : Math.ceil(disk.disk_size_bytes / MIB);
}

export function dataDisks(disks: readonly PrismDisk[]): PrismDisk[] {
  return disks.filter(isDataDisk);
}

function diffDisks(have: readonly PrismDisk[], want: readonly PrismDisk[], hotPlug: FieldChange[], impossible: FieldChange[]): void {
  want.forEach((disk, index) => {
    const existing = have[index];
    if (existing === undefined) {
      hotPlug.push({ field: `disks[${index}]`, from: undefined, to: { image: disk.data_source_reference?.uuid, size_mib: disk.disk_size_mib } });
      return;
    }
    const wantImage = disk.data_source_reference?.uuid;
    const haveImage = existing.data_source_reference?.uuid;
    if (wantImage !== undefined && wantImage.toLowerCase() !== haveImage?.toLowerCase()) {
      impossible.push({ field: `disks[${index}].image`, from: haveImage, to: wantImage, why: 'an existing disk cannot be re-imaged' });
    }
    const from = diskSizeMib(existing);
    const to = disk.disk_size_mib;
    if (to === undefined || from === undefined || to === from) return;
    if (to > from) hotPlug.push({ field: `disks[${index}].size_mib`, from, to });
    else impossible.push({ field: `disks[${index}].size_mib`, from, to, why: 'Prism cannot shrink a disk' });
  });
  have.slice(want.length).forEach((disk, offset) => {
    impossible.push({
      field: `disks[${want.length + offset}]`,
      from: { uuid: disk.uuid, size_mib: diskSizeMib(disk) },
      to: undefined,
      why: 'the operator never removes a disk (its data would be lost); detach it in Prism if that is intended',
    });
  });
}

/** NICs matched by position: a different subnet replaces the NIC; extra ones are removed, missing ones added. */
function diffNics(have: readonly PrismNic[], want: readonly PrismNic[], hotPlug: FieldChange[]): void {
  want.forEach((nic, index) => {
    const existing = have[index];
    const to = nic.subnet_reference?.uuid;
    if (existing === undefined) hotPlug.push({ field: `nics[${index}]`, from: undefined, to: { subnet: to } });
    else if (existing.subnet_reference?.uuid !== to) {
      hotPlug.push({ field: `nics[${index}].subnet`, from: existing.subnet_reference?.uuid, to });
    }
  });
  have.slice(want.length).forEach((nic, offset) => {
    hotPlug.push({ field: `nics[${want.length + offset}]`, from: { subnet: nic.subnet_reference?.uuid }, to: undefined });
  });
}

function sameStringMap(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}
