import { observedVmStatus } from '../desired/observed-vm-status.ts';
import { ownerUidOf } from '../desired/ownership-marker.ts';
import { failed } from '../desired/desired-ahvvm-status.ts';
import type { ObservedVm } from '../vm/vm-model.ts';
import type { PhaseDeps, PhaseRun, Result } from './reconcile-phase.ts';

/** Either the adopted VM to work on, or the reconcile is finished with the reason reported. */
export type Adoption = { kind: 'vm'; vm: ObservedVm } | { kind: 'done'; result: Result };

/** Why an AhvVm with `spec.adopt` has no VM: the operator never creates one for it. */
export const AdoptionReason = {
  /** The uuid names no VM (a typo, or the VM was deleted, before or after the adoption). */
  AdoptedVmNotFound: 'AdoptedVmNotFound',
  /** The VM carries another AhvVm's ownership marker. */
  AdoptionRefused: 'AdoptionRefused',
} as const;

/**
 * Takes over the VM `spec.adopt.uuid` names, for an AhvVm that has recorded no VM yet: only by that uuid — a VM is
 * never adopted because of its name, which Prism does not keep unique — and only when no other AhvVm owns it (its
 * ownership marker names another resource). The uuid is recorded; the reconcile then compares the VM with the spec as
 * for any VM of the operator's own, which adds the ownership marker and renames it to the AhvVm's name.
 */
export async function adoptVm(deps: PhaseDeps, run: PhaseRun, adoptUuid: string): Promise<Adoption> {
  const { scope, api, ctx } = run;
  const uuid = adoptUuid.toLowerCase();
  const vm = await api.getVm(uuid);
  if (vm === undefined) return reportAdoptedVmMissing(deps, run, uuid);
  const owner = ownerUidOf(vm.description);
  if (owner !== undefined && owner !== scope.avm.metadata.uid) {
    const message =
      `spec.adopt.uuid: VM ${uuid} (${JSON.stringify(vm.name)}) carries the ownership marker of another AhvVm (uid ${owner}); ` +
      'delete that AhvVm with deletion_policy Retain first, or adopt another VM';
    await deps.report.problem(scope, failed(AdoptionReason.AdoptionRefused, message), 'Adopt');
    return { kind: 'done', result: deps.requeue.driftCheck() };
  }
  await scope.record(observedVmStatus(vm));
  ctx.log.info({ vm: uuid, name: vm.name }, 'adopted the VM spec.adopt names; recorded its UUID');
  deps.report.event(scope, 'Normal', 'Adopted', 'Adopt', `took over VM ${uuid} (${JSON.stringify(vm.name)}), as spec.adopt asks`);
  return { kind: 'vm', vm };
}

/**
 * An adopted VM that is not there, or no longer is: reported, and never replaced by a new VM, which is not what
 * adopting asked for. The message says how to get one made instead.
 */
export async function reportAdoptedVmMissing(deps: PhaseDeps, run: PhaseRun, uuid: string): Promise<Adoption> {
  const message =
    `spec.adopt.uuid: Prism Central has no VM ${uuid}; the operator does not create a VM for an AhvVm that adopts one. ` +
    'Correct the uuid, or create a new AhvVm without adopt to have a VM made';
  await deps.report.problem(run.scope, failed(AdoptionReason.AdoptedVmNotFound, message), 'Adopt');
  return { kind: 'done', result: deps.requeue.driftCheck() };
}
