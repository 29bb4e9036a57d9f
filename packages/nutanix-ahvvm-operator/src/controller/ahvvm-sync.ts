import type { AhvVm } from '../api/ahvvm-resource.ts';
import { available, failed, pending, Reason, readyReasonOf } from '../desired/desired-ahvvm-status.ts';
import { observedVmStatus } from '../desired/observed-vm-status.ts';
import { describeChanges, planUpdate, type UpdateStep } from '../vm/update-plan.ts';
import { NO_CHANGES, type VmDiff } from '../vm/vm-diff.ts';
import type { DesiredVm, ObservedVm } from '../vm/vm-model.ts';
import type { PhaseDeps, PhaseRun, Result } from './reconcile-phase.ts';
import { eventActionOf, reasonWhileRunning, submittedTask, type TaskOperation } from './task-record.ts';

/**
 * Plans the update from the VM as Prism shows it now and takes its first step, or reports why there is none. The plan's
 * diff is the reconcile's only comparison of the VM with its AhvVm: the step is sent with it.
 */
export async function sync(deps: PhaseDeps, run: PhaseRun, vm: ObservedVm, desired: DesiredVm): Promise<Result> {
  const { scope, ctx } = run;
  const observed = observedVmStatus(vm);
  const { uuid } = observed;
  const plan = planUpdate(vm, desired, {
    consentToPowerCycle: scope.spec.allow_power_cycle,
    powerCycleInProgress: scope.status.powerCycleInProgress ?? false,
  });
  switch (plan.kind) {
    case 'wait':
      await scope.report(pending(plan.reason, plan.message), observed);
      return deps.requeue.poll();
    case 'blocked': {
      // Waiting for consent is by design; a change Prism cannot make needs someone to change the spec back.
      const outcome = plan.reason === 'PowerCycleRequired' ? pending(plan.reason, plan.message) : failed(plan.reason, plan.message);
      await deps.report.problem(scope, outcome, 'Update', observed);
      return deps.requeue.driftCheck();
    }
    case 'in-sync':
      if (vm.state === 'ERROR') {
        // A failed change leaves the VM in ERROR until an update succeeds (TF #131); its own spec clears it.
        const detail = vm.stateMessages?.join('; ') ?? 'no detail';
        const message = `Prism shows VM ${uuid} in ERROR (${detail}); sending its spec again to clear it`;
        return applyStep(deps, run, { vm, desired, diff: NO_CHANGES }, { action: 'apply-spec' }, message);
      }
      await scope.report(available(`VM ${uuid} matches the spec`), { ...observed, powerCycleInProgress: undefined });
      return deps.requeue.inSync(awaitsAddress(vm));
    case 'steps': {
      const [step] = plan.steps;
      if (step === undefined) throw new Error('planUpdate returned no steps');
      if (isDrift(scope.avm)) {
        const changes = describeDiff(plan.diff);
        ctx.log.info({ vm: uuid, changes }, 'the VM was changed outside Kubernetes; reverting');
        deps.report.event(scope, 'Normal', 'DriftDetected', 'Update', `VM ${uuid} was changed in Prism Central (${changes}); putting the spec back`);
      }
      // Recorded before the VM goes off, so that a reconcile after a restart still powers it on again.
      if (plan.powerCycle && scope.status.powerCycleInProgress !== true) await scope.record({ powerCycleInProgress: true });
      return applyStep(deps, run, { vm, desired, diff: plan.diff }, step, messageFor(step, uuid, plan.diff));
    }
  }
}

/** What a step is made from: the VM as just read, what it should be, and how the two differ. */
interface StepBasis {
  vm: ObservedVm;
  desired: DesiredVm;
  diff: VmDiff;
}

/** One request, built from the VM as just read; its task is followed by requeueing. */
async function applyStep(deps: PhaseDeps, { scope, api, ctx }: PhaseRun, { vm, desired, diff }: StepBasis, step: UpdateStep, message: string): Promise<Result> {
  const uuid = vm.uuid;
  const operation: TaskOperation = step.action === 'apply-spec' ? 'update' : step.action;
  let task: string;
  try {
    task = await api.applyStep(vm, step, desired, diff);
  } catch (error) {
    if (!api.isEditConflict(error)) throw error;
    // The VM changed between our GET and PUT: read it again and plan afresh.
    ctx.log.info({ vm: uuid }, 'edit conflict: the VM changed meanwhile; planning again');
    return deps.requeue.poll();
  }
  ctx.log.info({ vm: uuid, task, step: step.action }, message);
  const reason = reasonWhileRunning(operation);
  deps.report.event(scope, 'Normal', reason, eventActionOf(operation), `${message} (task ${task})`);
  await scope.report(pending(reason, message), { ...observedVmStatus(vm), lastTask: submittedTask(task, operation) });
  return deps.requeue.poll();
}

/** The VM differs although the spec has not changed since the operator last found them in sync. */
function isDrift(avm: AhvVm): boolean {
  return avm.status?.observedGeneration === avm.metadata.generation && readyReasonOf(avm) === Reason.Available;
}

/** A running VM with NICs whose addresses DHCP has yet to hand out (IPAM subnets assign them at creation). */
function awaitsAddress(vm: ObservedVm): boolean {
  return vm.ipAddresses.length === 0 && vm.nics.length > 0 && vm.powerState === 'ON';
}

function describeDiff(diff: VmDiff): string {
  const changes = [...diff.hotPlug, ...diff.powerCycle];
  const parts = changes.length > 0 ? [describeChanges(changes)] : [];
  if (diff.power !== undefined) parts.push(`power ${diff.power.from} → ${diff.power.to}`);
  return parts.join(', ');
}

function messageFor(step: UpdateStep, uuid: string, diff: VmDiff): string {
  const specChanges = describeChanges([...diff.hotPlug, ...diff.powerCycle]);
  switch (step.action) {
    case 'power-off':
      return specChanges === '' ? `powering VM ${uuid} off` : `powering VM ${uuid} off to apply ${specChanges}`;
    case 'power-on':
      return `powering VM ${uuid} on`;
    case 'apply-spec':
      return `applying ${specChanges} to VM ${uuid}`;
  }
}
