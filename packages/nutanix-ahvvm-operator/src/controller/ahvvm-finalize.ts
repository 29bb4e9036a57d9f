import { hasFinalizer, removeFinalizer, type KubeClient, type ReconcileContext } from '@k8s-operators/controller-core';
import { AHVVM_CRD_NAME, AhvVmRef } from '../api/ahvvm-ref.ts';
import { observedVmStatus } from '../desired/observed-vm-status.ts';
import { lookUpOwnedVm } from './ahvvm-create.ts';
import type { AhvVmScope } from './ahvvm-scope.ts';
import { pending, Reason } from '../desired/desired-ahvvm-status.ts';
import { followTask } from './follow-task.ts';
import type { PhaseDeps, PhaseRun, Result } from './reconcile-phase.ts';
import { resolveDesiredVm } from './resolve-desired-vm.ts';
import { submittedTask } from './task-record.ts';

/** Keeps the AhvVm until its VM is deleted in Prism (or let go, with `deletion_policy: Retain`). */
export const FINALIZER = 'nutanix.com/ahvvm';

/** Deleting the VM needs Prism; retaining it, or a resource that never got as far as a finalizer, does not. */
export function needsPrismToLetGo(scope: AhvVmScope): boolean {
  return hasFinalizer(scope.avm, FINALIZER) && scope.spec.deletion_policy === 'Delete';
}

export async function letGo(deps: Pick<PhaseDeps, 'kube' | 'report'>, scope: AhvVmScope, ctx: ReconcileContext): Promise<void> {
  const uuid = scope.status.uuid;
  if (hasFinalizer(scope.avm, FINALIZER) && uuid !== undefined) {
    ctx.log.info({ vm: uuid }, 'deletion_policy is Retain: leaving the VM in Prism');
    deps.report.event(scope, 'Normal', 'Retained', 'Delete', `VM ${uuid} is left in Prism Central (deletion_policy: Retain)`);
  }
  await release(deps.kube, scope);
}

/**
 * The AhvVm is deleted because its kind is: CRD ahvvms.nutanix.com was deleted, which is how the operator is
 * uninstalled (`kubectl delete -k`, `kubectl delete -f install.yaml`, `helm uninstall` with crds.keep=false), and the
 * API server then deletes every AhvVm. Nobody asked for the VMs to go, so each is kept as with `deletion_policy:
 * Retain` — nothing is sent to Prism — and the person on call is told which VM stayed and how to delete it.
 */
export async function keepOnUninstall(deps: Pick<PhaseDeps, 'kube' | 'report'>, scope: AhvVmScope, ctx: ReconcileContext): Promise<void> {
  const { uuid, createRequestId } = scope.status;
  // Without a UUID or a create request id (v4), this AhvVm never sent a create: it has no VM to tell about.
  if (uuid !== undefined || createRequestId !== undefined) {
    const name = JSON.stringify(scope.avm.metadata.name ?? '');
    const which = uuid === undefined ? `VM ${name} (UUID not known yet: create request ${createRequestId ?? ''})` : `VM ${name} (${uuid})`;
    const note =
      `${which} is kept in Prism Central: the AhvVm kind is being removed (CRD ${AHVVM_CRD_NAME} deleted, the operator uninstalled), ` +
      'which is not a request to delete VMs. To delete the VM, delete it in Prism Central; to have the operator delete VMs, ' +
      'delete their AhvVms first and wait until they are gone, then remove the operator';
    ctx.log.info({ vm: uuid, name: scope.avm.metadata.name }, note);
    deps.report.event(scope, 'Normal', 'Retained', 'Delete', note);
  }
  await release(deps.kube, scope);
}

export async function release(kube: Pick<KubeClient, 'patch'>, scope: AhvVmScope): Promise<void> {
  await removeFinalizer(kube, AhvVmRef, scope.avm, FINALIZER);
  scope.released = true;
}

/** DELETE the VM, follow the task by requeueing, and remove the finalizer once Prism answers 404. */
export async function finalize(deps: PhaseDeps, run: PhaseRun): Promise<Result> {
  const { scope, api, ctx } = run;
  const operation = scope.status.lastTask?.operation;
  // On v4 a VM's UUID is known only from its create task: a create still running is followed to its end first.
  const followCreate = operation === 'create' && !api.createTokenIsVmUuid && scope.status.uuid === undefined;
  if (operation === 'delete' || followCreate) {
    const followed = await followTask(deps, scope, api);
    if (followed === 'running') return deps.requeue.poll();
    if (followed === 'failed' && operation === 'delete') return deps.requeue.prismRetry();
  }
  let uuid = scope.status.uuid;
  if (uuid === undefined) {
    // The UUID is recorded before any create, so without one this resource never sent one; a VM it owns can only
    // be there if its status was lost (a restore), and then the ownership marker finds it.
    const lookup = await lookUpOwnedVm(api, scope.avm);
    if (lookup.kind !== 'found') {
      if (await askAfterUnansweredCreate(deps, run)) return deps.requeue.poll();
      await release(deps.kube, scope);
      return undefined;
    }
    uuid = lookup.vm.uuid;
  }
  const vm = await api.getVm(uuid);
  if (vm === undefined) {
    ctx.log.info({ vm: uuid }, 'the VM is gone from Prism; removing the finalizer');
    deps.report.event(scope, 'Normal', 'Deleted', 'Delete', `VM ${uuid} no longer exists in Prism Central`);
    await release(deps.kube, scope);
    return undefined;
  }
  if (vm.state === 'DELETE_PENDING') {
    await scope.report(pending(Reason.Deleting, `Prism Central is deleting VM ${uuid}`), observedVmStatus(vm));
    return deps.requeue.poll();
  }
  const task = await api.deleteVm(vm);
  if (task === undefined) {
    await release(deps.kube, scope);
    return undefined;
  }
  ctx.log.info({ vm: uuid, task }, 'deleting the VM in Prism');
  deps.report.event(scope, 'Normal', Reason.Deleting, 'Delete', `deleting VM ${uuid} in Prism Central (task ${task})`);
  await scope.report(pending(Reason.Deleting, `deleting VM ${uuid} in Prism Central`), { ...observedVmStatus(vm), lastTask: submittedTask(task, 'delete') });
  return deps.requeue.poll();
}

/**
 * v4, deleting: a create request was recorded but its task never was (the operator stopped in between), and no VM
 * shows yet — Prism lists none while its create runs. The create is sent again with its request id: Prism answers
 * the first request's task (or, if that request never arrived, makes the VM now), which is followed to learn the
 * VM's extId and delete it. Without this the finalizer would go and leave the VM behind.
 */
async function askAfterUnansweredCreate(deps: PhaseDeps, { scope, prism, api, ctx }: PhaseRun): Promise<boolean> {
  const { createRequestId, lastTask } = scope.status;
  if (api.createTokenIsVmUuid || createRequestId === undefined || lastTask?.operation === 'create') return false;
  const desired = await resolveDesiredVm(scope, prism, deps.names);
  if (!desired.ok || (await api.prepare(desired.vm)) !== undefined) return false;
  const created = await api.createVm(desired.vm, createRequestId);
  if (created.taskUuid === undefined) return false;
  ctx.log.info({ requestId: createRequestId, task: created.taskUuid }, 'deleting: asked Prism what became of the unanswered create request');
  await scope.report(pending(Reason.Deleting, `finding the VM of create request ${createRequestId} to delete it`), { lastTask: submittedTask(created.taskUuid, 'create') });
  return true;
}
