// Which AhvVm owns which Prism VM, and how evidence names both, shared so that every Nutanix checker names an object
// the way the others do (an on-call engineer greps for the uid or the uuid).
import type { AhvVmRecord, PrismVm } from '../timeline.ts';

export type AhvVmsByUid = ReadonlyMap<string, AhvVmRecord>;

export function ahvVmsByUid(ahvVms: readonly AhvVmRecord[]): AhvVmsByUid {
  return new Map(ahvVms.map((ahvVm) => [ahvVm.uid, ahvVm]));
}

/** The VMs carrying an ownership marker, by owner uid; VMs without one are not the operator's. */
export function vmsByOwner(vms: readonly PrismVm[]): Map<string, PrismVm[]> {
  const owned = new Map<string, PrismVm[]>();
  for (const vm of vms) {
    if (vm.ownerUid === undefined) continue;
    const siblings = owned.get(vm.ownerUid);
    if (siblings) siblings.push(vm);
    else owned.set(vm.ownerUid, [vm]);
  }
  return owned;
}

/** `AhvVm namespace/name (uid …)`, or the bare uid when the workload never recorded such an AhvVm. */
export function ahvVmText(uid: string, known: AhvVmsByUid): string {
  const ahvVm = known.get(uid);
  return ahvVm ? `AhvVm ${ahvVm.namespace}/${ahvVm.name} (uid ${uid})` : `an AhvVm the workload never recorded (uid ${uid})`;
}

export function prismVmText(vm: PrismVm): string {
  return `"${vm.name}" (uuid ${vm.uuid})`;
}
