import { diffVm, type FieldChange, type VmDiff } from './vm-diff.ts';
import { BUSY_VM_STATES, actualPowerState, type DesiredVm, type ObservedVm } from './vm-model.ts';

/**
 * What to do about a VM that differs from its AhvVm: the exact sequence of steps, or why nothing may be done now.
 *
 * The plan is made from one diff, the reconcile's only one; the reconciler sends the first step, with that diff,
 * through `PrismVmApi.applyStep` and looks again once its task ended. Power goes off first and comes back on last, so
 * every spec change is made by `apply-spec` on a VM that is either running (live changes only) or stopped (anything).
 * A running VM is powered off only when the resource asks for OFF or consents to a power cycle (`allow_power_cycle`);
 * otherwise changes that need it wait, blocked with `PowerCycleRequired`.
 *
 * A power cycle spans several steps. If the operator stops half-way, the VM is left OFF and a fresh plan cannot tell
 * "powered off for an update" from "powered off by someone", so the reconciler records `status.powerCycleInProgress`
 * while `powerCycle` plans run and passes it back here; the plan then ends with power-on even if nothing else is left.
 */

export type UpdateStep =
  | { action: 'power-off' }
  /** Apply the desired VM, keeping the power state the VM has at that point. */
  | { action: 'apply-spec' }
  | { action: 'power-on' };

export type UpdatePlan =
  | { kind: 'in-sync' }
  /** A task is still running on the VM; look again when it is done. */
  | { kind: 'wait'; reason: 'TaskInProgress'; message: string }
  | { kind: 'blocked'; reason: 'PowerCycleRequired' | 'UnsupportedChange'; message: string; diff: VmDiff }
  | {
      kind: 'steps';
      steps: UpdateStep[];
      diff: VmDiff;
      /** True when the steps power a running VM off and on again: record `powerCycleInProgress` before the first. */
      powerCycle: boolean;
    };

export interface PlanUpdateOptions {
  /** `spec.allow_power_cycle`. */
  consentToPowerCycle: boolean;
  /** `status.powerCycleInProgress`: the operator powered the VM off for an update and has not powered it on yet. */
  powerCycleInProgress?: boolean;
}

export function planUpdate(current: ObservedVm, desired: DesiredVm, options: PlanUpdateOptions): UpdatePlan {
  if (BUSY_VM_STATES.includes(current.state)) {
    return {
      kind: 'wait',
      reason: 'TaskInProgress',
      message: `the VM is ${current.state} in Prism; changes wait until its task ends`,
    };
  }
  const diff = diffVm(current, desired);
  if (diff.impossible.length > 0) {
    return {
      kind: 'blocked',
      reason: 'UnsupportedChange',
      message: `cannot apply ${describeChanges(diff.impossible)}; change the AhvVm back, or recreate it to get a new VM`,
      diff,
    };
  }
  const isOn = actualPowerState(current) === 'ON';
  const desiredPower = desired.powerState;
  const needsCycle = isOn && diff.powerCycle.length > 0 && desiredPower !== 'OFF';
  if (needsCycle && !options.consentToPowerCycle) {
    return {
      kind: 'blocked',
      reason: 'PowerCycleRequired',
      message:
        `the VM is running and ${describeChanges(diff.powerCycle)} needs it powered off` +
        (diff.hotPlug.length > 0 ? ` (with ${describeChanges(diff.hotPlug)}, which could be applied live)` : '') +
        '; set spec.allow_power_cycle: true to let the operator power-cycle it, or spec.power_state: PoweredOff',
      diff,
    };
  }

  const powerOff = isOn && (desiredPower === 'OFF' || needsCycle);
  // Unmanaged power: a running VM stays running, and one the operator stopped for an update is started again.
  const endsOn = desiredPower === 'ON' || (desiredPower === undefined && (isOn || options.powerCycleInProgress === true));
  const steps: UpdateStep[] = [];
  if (powerOff) steps.push({ action: 'power-off' });
  if (diff.hotPlug.length > 0 || diff.powerCycle.length > 0) steps.push({ action: 'apply-spec' });
  if (endsOn && (powerOff || !isOn)) steps.push({ action: 'power-on' });
  if (steps.length === 0) return { kind: 'in-sync' };
  return { kind: 'steps', steps, diff, powerCycle: powerOff && endsOn };
}

/** `field from → to` for each change, comma-separated, for condition messages and Events. */
export function describeChanges(changes: readonly FieldChange[]): string {
  return changes
    .map(({ field, from, to, why }) => `${field} ${show(from)} → ${show(to)}${why === undefined ? '' : ` (${why})`}`)
    .join(', ');
}

function show(value: unknown): string {
  if (value === undefined) return 'none';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
