import type { PrismDisk, PrismNic, PrismVm, PrismVmIntent } from '../prism/prism-types.ts';
import { dataDisks, diffVm, diskSizeMib, type FieldChange } from './vm-diff.ts';

/**
 * The next request that brings a v4 VM closer to its AhvVm in an `apply-spec` step.
 *
 * A v3 PUT replaces the whole spec, so one PUT makes every change. v4 splits the VM: a PUT changes its own
 * configuration (name, description, CPU, memory, boot, categories) and keeps its disks and NICs, which change through
 * their own endpoints, one device per request. Every one of those requests needs the VM's current ETag, which the
 * previous one's task moves, so one reconcile sends one of them and the next reconcile plans again from a fresh read:
 * the VM's own configuration first, then disks, then NICs, each in list order. The changes are those `diffVm` lets
 * through, made as v3's `applyDesiredToCurrentSpec` makes them: data disks matched by position grow and missing ones
 * are added (never shrunk, re-imaged or removed: the diff blocks those first); NICs matched by position move to the
 * wanted subnet, missing ones are added and extra ones removed.
 */
export type V4Change =
  /** PUT the VM's own configuration (also what clears a VM with nothing else to change). */
  | { kind: 'vm' }
  | { kind: 'add-disk'; disk: PrismDisk }
  | { kind: 'grow-disk'; extId: string; sizeMib: number }
  | { kind: 'add-nic'; nic: PrismNic }
  | { kind: 'move-nic'; extId: string; nic: PrismNic }
  | { kind: 'remove-nic'; extId: string };

const isDeviceChange = (change: FieldChange): boolean => /^(disks|nics)\[/.test(change.field);

export function nextV4Change(current: PrismVm, desired: PrismVmIntent): V4Change {
  const diff = diffVm(current, desired);
  if ([...diff.hotPlug, ...diff.powerCycle].some((change) => !isDeviceChange(change))) return { kind: 'vm' };
  return nextDiskChange(current, desired) ?? nextNicChange(current, desired) ?? { kind: 'vm' };
}

function nextDiskChange(current: PrismVm, desired: PrismVmIntent): V4Change | undefined {
  const want = desired.spec.resources.disk_list;
  if (want === undefined) return undefined;
  const have = dataDisks(current.spec.resources.disk_list ?? []);
  for (const [index, wanted] of want.entries()) {
    const existing = have[index];
    if (existing === undefined) return { kind: 'add-disk', disk: wanted };
    const size = diskSizeMib(existing);
    if (existing.uuid !== undefined && wanted.disk_size_mib !== undefined && size !== undefined && wanted.disk_size_mib > size) {
      return { kind: 'grow-disk', extId: existing.uuid, sizeMib: wanted.disk_size_mib };
    }
  }
  return undefined;
}

function nextNicChange(current: PrismVm, desired: PrismVmIntent): V4Change | undefined {
  const want = desired.spec.resources.nic_list;
  if (want === undefined) return undefined;
  const have = current.spec.resources.nic_list ?? [];
  for (const [index, wanted] of want.entries()) {
    const existing = have[index];
    if (existing === undefined) return { kind: 'add-nic', nic: wanted };
    if (existing.uuid !== undefined && existing.subnet_reference?.uuid !== wanted.subnet_reference?.uuid) return { kind: 'move-nic', extId: existing.uuid, nic: wanted };
  }
  const extra = have[want.length];
  return extra?.uuid === undefined ? undefined : { kind: 'remove-nic', extId: extra.uuid };
}
