import type { AhvVm } from '../api/ahvvm-resource.ts';
import { withCloudInitUserData } from '../desired/desired-vm.ts';
import { observedVmStatus } from '../desired/observed-vm-status.ts';
import type { CreateAccepted, PrismVmApi } from '../vm/prism-vm-api.ts';
import type { DesiredVm, ObservedVm } from '../vm/vm-model.ts';
import { adoptVm, reportAdoptedVmMissing } from './adopt-vm.ts';
import { findOwnedVm, type OwnedVmLookup } from './find-owned-vm.ts';
import { failed, pending, Reason, type StatusFields } from '../desired/desired-ahvvm-status.ts';
import { cloudInitUserData } from './cloud-init-user-data.ts';
import type { PhaseDeps, PhaseRun, Result } from './reconcile-phase.ts';
import { resolveGpus } from './resolve-gpus.ts';
import { isTaskFailure, submittedTask } from './task-record.ts';

/** Either the VM to work on, or the reconcile is finished (a create was sent, or a problem reported). */
export type Located = { kind: 'vm'; vm: ObservedVm } | { kind: 'done'; result: Result };

/** Observed VM fields that no longer apply once a new VM is to be created. */
const FORGET_VM: StatusFields = {
  state: undefined,
  powerState: undefined,
  ipAddresses: undefined,
  specVersion: undefined,
  lastTask: undefined,
  powerCycleInProgress: undefined,
};

/** The VMs named like `avm`, judged by its ownership marker. */
export async function lookUpOwnedVm(api: PrismVmApi, avm: AhvVm): Promise<OwnedVmLookup> {
  const { name, uid } = avm.metadata;
  if (name === undefined || uid === undefined) throw new Error('an AhvVm read from the API server has a name and a uid');
  return findOwnedVm(await api.listVmsByName(name), uid, name);
}

/**
 * Finds the resource's VM: by the UUID in status, else by `spec.adopt` (and then never creates one), else by the
 * ownership marker and the exact name. Creates one only when neither finds it, and only after recording the UUID it
 * will have.
 */
export async function locateOrCreate(deps: PhaseDeps, run: PhaseRun, desired: DesiredVm): Promise<Located> {
  const { scope, api, ctx } = run;
  const { uuid, lastTask, state, createRequestId } = scope.status;
  const createFailed = lastTask?.operation === 'create' && isTaskFailure(lastTask);
  const adopt = scope.spec.adopt;
  if (uuid !== undefined) {
    const vm = await api.getVm(uuid);
    if (vm !== undefined) return { kind: 'vm', vm };
    if (adopt !== undefined) return reportAdoptedVmMissing(deps, run, uuid);
    if (createFailed) {
      return create(deps, run, desired, { message: `the create of VM ${uuid} failed; creating the VM with a new UUID` });
    }
    const existed = state !== undefined || (lastTask?.operation === 'create' && lastTask.status === 'SUCCEEDED');
    if (existed) {
      const message = `VM ${uuid} was deleted outside Kubernetes; creating it again`;
      ctx.log.warn({ vm: uuid }, message);
      deps.report.event(scope, 'Warning', 'VmDeletedOutOfBand', 'Create', message);
      // v3 tries the same idempotence UUID first (Prism says 409 when it is spent); a v4 request id would only
      // answer the old create's task, so v4 sends a new one.
      return create(deps, run, desired, { reason: Reason.Recreating, message, ...(api.createTokenIsVmUuid ? { reuseToken: uuid } : {}) });
    }
    // Recorded but never seen: the POST may not have reached Prism (the operator stopped in between). The same
    // idempotence UUID makes sending it again safe: Prism creates the VM once.
    return create(deps, run, desired, api.createTokenIsVmUuid ? { reuseToken: uuid } : {});
  }
  if (adopt !== undefined) return adoptVm(deps, run, adopt.uuid);
  const lookup = await lookUpOwnedVm(api, scope.avm);
  switch (lookup.kind) {
    case 'found': {
      const vm = lookup.vm;
      await scope.record(observedVmStatus(vm));
      ctx.log.info({ vm: vm.uuid }, 'found the VM by its ownership marker; recorded its UUID');
      deps.report.event(scope, 'Normal', 'Adopted', 'Find', `found VM ${vm.uuid}, which carries this resource's ownership marker`);
      return { kind: 'vm', vm };
    }
    case 'ambiguous':
      await deps.report.problem(scope, failed(lookup.reason, lookup.message), 'Create');
      return { kind: 'done', result: deps.requeue.driftCheck() };
    case 'none':
      // v4: a create whose request id is recorded may have been sent (and may still be running, which no list
      // shows): sending it again with the same id answers its task and makes no second VM.
      if (!api.createTokenIsVmUuid && createRequestId !== undefined && !createFailed) {
        return create(deps, run, desired, { reuseToken: createRequestId });
      }
      return create(deps, run, desired, {});
  }
}

/**
 * POST /vms with an idempotence UUID. A fresh UUID is reserved and written to status before the POST, fenced on
 * the resource's version: a crash after the POST leaves the UUID behind, and the next reconcile finds the VM by it
 * or sends the same POST again, which cannot make a second VM.
 */
async function create(
  deps: PhaseDeps,
  run: PhaseRun,
  desired: DesiredVm,
  how: { reuseToken?: string; reason?: string; message?: string },
): Promise<Located> {
  const { scope, api, ctx } = run;
  const reason = how.reason ?? Reason.Creating;
  const userData = await cloudInitUserData(deps.kube, scope);
  if (!userData.ok) {
    await deps.report.problem(scope, failed(userData.reason, userData.message), 'Create');
    return { kind: 'done', result: deps.requeue.driftCheck() };
  }
  const gpus = await resolveGpus(api, desired.clusterUuid, scope.spec.gpus);
  if (!gpus.ok) {
    await deps.report.problem(scope, failed(gpus.reason, gpus.message), 'Create');
    return { kind: 'done', result: deps.requeue.driftCheck() };
  }
  let toCreate: DesiredVm = gpus.gpus === undefined ? desired : { ...desired, gpus: gpus.gpus };
  if (userData.base64 !== undefined) {
    const withUserData = withCloudInitUserData(toCreate, userData.base64);
    if (!withUserData.ok) {
      await deps.report.problem(scope, failed(withUserData.reason, withUserData.message), 'Create');
      return { kind: 'done', result: deps.requeue.driftCheck() };
    }
    toCreate = withUserData.vm;
  }

  let token = how.reuseToken;
  // v3: the token is the VM's UUID to be. v4: the NTNX-Request-Id; the VM's UUID comes from the task.
  const tokenFields = (value: string): StatusFields => (api.createTokenIsVmUuid ? { uuid: value } : { uuid: undefined, createRequestId: value });
  const what = (value: string): string => (api.createTokenIsVmUuid ? `VM ${value}` : `the VM (Prism v4 request ${value})`);
  if (token === undefined) {
    token = await api.newCreateToken();
    await scope.report(pending(reason, how.message ?? `creating ${what(token)}`), { ...FORGET_VM, ...tokenFields(token) });
  }
  let created: CreateAccepted;
  try {
    created = await api.createVm(toCreate, token);
  } catch (error) {
    if (how.reuseToken === undefined || !api.isSpentCreateToken(error)) throw error;
    ctx.log.info({ vm: token }, 'the recorded UUID was used by a VM that is gone; reserving a new one');
    return create(deps, run, desired, { reason, message: how.message ?? `VM ${token} is gone; creating the VM with a new UUID` });
  }
  const task = created.taskUuid;
  ctx.log.info({ vm: created.uuid, requestId: api.createTokenIsVmUuid ? undefined : token, task, alreadyExisted: created.alreadyExisted, api: api.version }, 'create request accepted by Prism');
  if (!created.alreadyExisted) deps.report.event(scope, 'Normal', 'Created', 'Create', `Prism Central is creating ${what(token)} (task ${task ?? 'unknown'})`);
  await scope.report(pending(reason, how.message ?? `creating ${what(token)}`), {
    ...(how.reuseToken === undefined ? {} : FORGET_VM),
    ...tokenFields(token),
    lastTask: task === undefined ? undefined : submittedTask(task, 'create'),
  });
  return { kind: 'done', result: deps.requeue.poll() };
}
