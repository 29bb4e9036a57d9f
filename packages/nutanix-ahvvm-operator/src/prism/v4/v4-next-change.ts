import type { DeviceChange, VmDiff } from '../../vm/vm-diff.ts';
import type { DesiredDisk, DesiredNic } from '../../vm/vm-model.ts';

/**
 * The next request that brings a v4 VM closer to its AhvVm in an `apply-spec` step, read off the reconcile's diff.
 *
 * A v3 PUT replaces the whole spec, so one PUT makes every change. v4 splits the VM: a PUT changes its own
 * configuration (name, description, CPU, memory, boot, categories) and keeps its disks and NICs, which change through
 * their own endpoints, one device per request. Every one of those requests needs the VM's current ETag, which the
 * previous one's task moves, so one reconcile sends one of them and the next reconcile plans again from a fresh read:
 * the VM's own configuration first, then disks, then NICs, each in list order (the diff's order). Disks are never
 * shrunk, re-imaged or removed: the diff calls those impossible, and the plan blocks them before any step.
 */
export type V4Change =
  /** PUT the VM's own configuration (also what clears a VM with nothing else to change). */
  | { kind: 'vm' }
  | { kind: 'add-disk'; disk: DesiredDisk }
  | { kind: 'grow-disk'; extId: string; sizeMib: number }
  | { kind: 'add-nic'; nic: DesiredNic }
  | { kind: 'move-nic'; extId: string; nic: DesiredNic }
  | { kind: 'remove-nic'; extId: string };

export function nextV4Change(diff: VmDiff): V4Change {
  const changes = [...diff.hotPlug, ...diff.powerCycle];
  if (changes.some((change) => change.device === undefined)) return { kind: 'vm' };
  for (const { device } of changes) {
    const change = device === undefined ? undefined : v4ChangeOf(device);
    if (change !== undefined) return change;
  }
  return { kind: 'vm' };
}

/** The request for one device change; none for a device v4 showed without an extId, which no request can name. */
function v4ChangeOf(device: DeviceChange): V4Change | undefined {
  switch (device.kind) {
    case 'add-disk':
    case 'add-nic':
      return device;
    case 'grow-disk':
      return device.id === undefined ? undefined : { kind: 'grow-disk', extId: device.id, sizeMib: device.sizeMib };
    case 'move-nic':
      return device.id === undefined ? undefined : { kind: 'move-nic', extId: device.id, nic: device.nic };
    case 'remove-nic':
      return device.id === undefined ? undefined : { kind: 'remove-nic', extId: device.id };
  }
}
