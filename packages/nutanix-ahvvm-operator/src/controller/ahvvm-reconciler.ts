import {
  ensureFinalizer,
  hasFinalizer,
  removeFinalizer,
  type EventDetails,
  type KubeClient,
  type ReadonlyCache,
  type ReconcileContext,
  type ReconcileResult,
} from '@k8s-operators/controller-core';
import type { KubernetesObject } from '@kubernetes/client-node';
import { AhvVmRef } from '../api/ahvvm-ref.ts';
import type { AhvVm } from '../api/ahvvm-resource.ts';
import type { AhvVmMetrics } from '../metrics/ahvvm-metrics.ts';
import { isTaskFinished, type PrismVm, type PrismVmIntent } from '../prism/prism-types.ts';
import { vmUuidOfTask } from '../prism/v4-vm-translation.ts';
import { desiredVmSpec, namesToResolve, withCloudInitUserData, type DesiredVmResult } from '../vm/desired-vm.ts';
import { findOwnedVm } from '../vm/find-owned-vm.ts';
import { observedVmStatus } from '../vm/observed-vm.ts';
import { describeChanges, planUpdate, type UpdateStep } from '../vm/update-plan.ts';
import type { VmDiff } from '../vm/vm-diff.ts';
import type { CreateAccepted, PrismVmApi } from '../vm/vm-api.ts';
import { AhvVmScope } from './ahvvm-scope.ts';
import { available, failed, pending, Reason, readyReasonOf, type Outcome, type StatusFields } from './ahvvm-status.ts';
import { cloudInitUserData } from './cloud-init-user-data.ts';
import { EntityNameCache } from './entity-name-cache.ts';
import { FencedStatusWriter } from './fenced-status-writer.ts';
import { PrismAccessGate, type AccessResult } from './prism-access-gate.ts';
import type { PrismConnection } from './prism-connection.ts';
import { classifyPrismFailure, type PrismFailure } from './prism-failure.ts';
import { RetryBackoff } from './retry-backoff.ts';
import {
  eventActionOf,
  finishedTask,
  isTaskFailure,
  isTaskPending,
  reasonWhileRunning,
  submittedTask,
  UNKNOWN_TASK_STATUS,
  type TaskOperation,
} from './task-record.ts';
import { ABSENT_STATE, VmStateGauge } from './vm-state-gauge.ts';

/** Keeps the AhvVm until its VM is deleted in Prism (or let go, with `deletion_policy: Retain`). */
export const FINALIZER = 'nutanix.com/ahvvm';
export const FIELD_MANAGER = 'nutanix-ahvvm-operator';

export interface ReconcileIntervals {
  /** How often a running Prism task is looked at. Default 1 s. */
  taskPollMs: number;
  /**
   * How often an idle VM is compared with its AhvVm. Prism has no watch, so this is how changes made in Prism (and
   * VMs deleted there) are found. Spread by ±10 %, so that VMs created together are not all read at the same moment
   * ever after. Default 60 s.
   */
  driftCheckMs: number;
  /** How often a running VM with NICs but no IP address yet is looked at, until DHCP gives it one. Default 5 s. */
  addressPollMs: number;
}

export const DEFAULT_INTERVALS: ReconcileIntervals = { taskPollMs: 1_000, driftCheckMs: 60_000, addressPollMs: 5_000 };

export interface AhvVmReconcilerOptions {
  kube: Pick<KubeClient, 'applyStatus' | 'patch' | 'get'>;
  cache: ReadonlyCache<AhvVm>;
  prism: PrismConnection;
  events: { event(regarding: KubernetesObject, details: EventDetails): void };
  metrics: AhvVmMetrics;
  intervals?: Partial<ReconcileIntervals>;
  /** Default: a gate closed for 10 s after the first refusal, doubling to 5 minutes. */
  gate?: PrismAccessGate;
  backoff?: RetryBackoff;
  now?: () => Date;
}

type Result = ReconcileResult | undefined;
type Connected = Extract<PrismConnection, { configured: true }>;

/** A step of a reconcile that either produced the VM to work on or finished the reconcile. */
type Located = { kind: 'vm'; vm: PrismVm } | { kind: 'done'; result: Result };

/** Observed VM fields that no longer apply once a new VM is to be created. */
const FORGET_VM: StatusFields = {
  state: undefined,
  powerState: undefined,
  ipAddresses: undefined,
  specVersion: undefined,
  lastTask: undefined,
  powerCycleInProgress: undefined,
};

/**
 * The AhvVm reconcile: one level-triggered pass that reads the resource and its VM and takes at most one step
 * towards the spec, then requeues to see how the step went. It never waits for a Prism task while holding a worker.
 *
 *   finalizer → follow the last task → desired VM → find the VM (UUID in status, else the ownership marker and the
 *   exact name) → create it (idempotence UUID recorded first) or plan the update → one PUT → requeue
 */
export class AhvVmReconciler {
  readonly #kube: AhvVmReconcilerOptions['kube'];
  readonly #cache: ReadonlyCache<AhvVm>;
  readonly #prism: PrismConnection;
  readonly #events: AhvVmReconcilerOptions['events'];
  readonly #metrics: AhvVmMetrics;
  readonly #intervals: ReconcileIntervals;
  readonly #gate: PrismAccessGate;
  readonly #backoff: RetryBackoff;
  readonly #now: () => Date;
  readonly #writer: FencedStatusWriter;
  readonly #states: VmStateGauge;
  readonly #names: EntityNameCache | undefined;
  /** Resources told that TLS verification is off, so each hears it once per operator run rather than per reconcile. */
  readonly #warnedInsecure = new Set<string>();

  constructor(options: AhvVmReconcilerOptions) {
    this.#kube = options.kube;
    this.#cache = options.cache;
    this.#prism = options.prism;
    this.#events = options.events;
    this.#metrics = options.metrics;
    this.#intervals = { ...DEFAULT_INTERVALS, ...options.intervals };
    this.#gate = options.gate ?? new PrismAccessGate();
    this.#backoff = options.backoff ?? new RetryBackoff();
    this.#now = options.now ?? ((): Date => new Date());
    this.#writer = new FencedStatusWriter(options.kube, FIELD_MANAGER);
    this.#states = new VmStateGauge(options.metrics.vms);
    const { prism } = options;
    this.#names = prism.configured ? new EntityNameCache((kind, name) => prism.client.listEntityUuidsByName(kind, name)) : undefined;
  }

  readonly reconcile = async (ctx: ReconcileContext): Promise<Result> => {
    const { key } = ctx.request;
    const cached = this.#cache.get(key);
    if (cached === undefined) {
      this.#states.delete(key);
      this.#backoff.reset(key);
      return undefined;
    }
    const scope = new AhvVmScope(cached, this.#writer, this.#now);
    try {
      return await this.#reconcile(scope, ctx);
    } finally {
      if (scope.released) this.#states.delete(key);
      else this.#states.set(key, scope.status.state ?? ABSENT_STATE);
    }
  };

  async #reconcile(scope: AhvVmScope, ctx: ReconcileContext): Promise<Result> {
    const prism = this.#prism;
    if (!prism.configured) return this.#unconfigured(scope, prism.problem);
    const deleting = scope.avm.metadata.deletionTimestamp !== undefined;
    if (deleting && !this.#needsPrismToLetGo(scope.avm)) {
      await this.#letGo(scope, ctx);
      return undefined;
    }
    const admission = this.#gate.admit();
    if (admission.kind === 'closed') {
      await this.#reportProblem(scope, failed(admission.reason, admission.message), 'Connect');
      return { requeueAfterMs: admission.retryInMs };
    }
    try {
      const api = await prism.vms();
      const result = deleting ? await this.#finalize(scope, prism, api, ctx) : await this.#converge(scope, prism, api, ctx);
      this.#gate.release(admission, 'granted');
      return result;
    } catch (error) {
      const failure = classifyPrismFailure(error);
      this.#gate.release(admission, accessResultOf(failure), failure);
      if (failure === undefined) throw error;
      return this.#prismFailed(scope, failure, error, ctx);
    }
  }

  /** Without a Prism connection nothing can be done but say so; the finalizer goes only where no VM is at stake. */
  async #unconfigured(scope: AhvVmScope, problem: string): Promise<Result> {
    const { avm } = scope;
    if (avm.metadata.deletionTimestamp !== undefined) {
      if (!hasFinalizer(avm, FINALIZER)) return undefined;
      if (avm.spec.deletion_policy === 'Retain' || scope.status.uuid === undefined) {
        await this.#release(scope);
        return undefined;
      }
      const message = `cannot delete VM ${scope.status.uuid} without Prism Central (to leave the VM, remove the finalizer ${FINALIZER}): ${problem}`;
      await this.#reportProblem(scope, failed(Reason.ConfigurationError, message), 'Delete');
      return undefined;
    }
    // Nothing to retry until the operator restarts with a fixed Secret.
    await this.#reportProblem(scope, failed(Reason.ConfigurationError, problem), 'Connect');
    return undefined;
  }

  // ---- deletion ---------------------------------------------------------------------------------------------------

  /** Deleting the VM needs Prism; retaining it, or a resource that never got as far as a finalizer, does not. */
  #needsPrismToLetGo(avm: AhvVm): boolean {
    return hasFinalizer(avm, FINALIZER) && (avm.spec.deletion_policy ?? 'Delete') === 'Delete';
  }

  async #letGo(scope: AhvVmScope, ctx: ReconcileContext): Promise<void> {
    const uuid = scope.status.uuid;
    if (hasFinalizer(scope.avm, FINALIZER) && uuid !== undefined) {
      ctx.log.info({ vm: uuid }, 'deletion_policy is Retain: leaving the VM in Prism');
      this.#event(scope, 'Normal', 'Retained', 'Delete', `VM ${uuid} is left in Prism Central (deletion_policy: Retain)`);
    }
    await this.#release(scope);
  }

  /** DELETE the VM, follow the task by requeueing, and remove the finalizer once Prism answers 404. */
  async #finalize(scope: AhvVmScope, prism: Connected, api: PrismVmApi, ctx: ReconcileContext): Promise<Result> {
    const operation = scope.status.lastTask?.operation;
    // On v4 a VM's UUID is known only from its create task: a create still running is followed to its end first.
    const followCreate = operation === 'create' && !api.createTokenIsVmUuid && scope.status.uuid === undefined;
    if (operation === 'delete' || followCreate) {
      const followed = await this.#followTask(scope, api);
      if (followed === 'running') return this.#poll();
      if (followed === 'failed' && operation === 'delete') return { requeueAfterMs: this.#backoff.next(ctx.request.key) };
    }
    let uuid = scope.status.uuid;
    if (uuid === undefined) {
      // The UUID is recorded before any create, so without one this resource never sent one; a VM it owns can only
      // be there if its status was lost (a restore), and then the ownership marker finds it.
      const { name, uid } = identityOf(scope.avm);
      const lookup = findOwnedVm(await api.listVmsByName(name), uid, name);
      if (lookup.kind !== 'found') {
        if (await this.#askAfterUnansweredCreate(scope, prism, api, ctx)) return this.#poll();
        await this.#release(scope);
        return undefined;
      }
      uuid = lookup.vm.metadata.uuid;
    }
    const vm = await api.getVm(uuid);
    if (vm === undefined) {
      ctx.log.info({ vm: uuid }, 'the VM is gone from Prism; removing the finalizer');
      this.#event(scope, 'Normal', 'Deleted', 'Delete', `VM ${uuid} no longer exists in Prism Central`);
      await this.#release(scope);
      return undefined;
    }
    if (vm.status.state === 'DELETE_PENDING') {
      await scope.report(pending(Reason.Deleting, `Prism Central is deleting VM ${uuid}`), observedVmStatus(vm));
      return this.#poll();
    }
    const task = await api.deleteVm(vm);
    if (task === undefined) {
      await this.#release(scope);
      return undefined;
    }
    ctx.log.info({ vm: uuid, task }, 'deleting the VM in Prism');
    this.#event(scope, 'Normal', Reason.Deleting, 'Delete', `deleting VM ${uuid} in Prism Central (task ${task})`);
    await scope.report(pending(Reason.Deleting, `deleting VM ${uuid} in Prism Central`), { ...observedVmStatus(vm), lastTask: submittedTask(task, 'delete') });
    return this.#poll();
  }

  /**
   * v4, deleting: a create request was recorded but its task never was (the operator stopped in between), and no VM
   * shows yet — Prism lists none while its create runs. The create is sent again with its request id: Prism answers
   * the first request's task (or, if that request never arrived, makes the VM now), which is followed to learn the
   * VM's extId and delete it. Without this the finalizer would go and leave the VM behind.
   */
  async #askAfterUnansweredCreate(scope: AhvVmScope, prism: Connected, api: PrismVmApi, ctx: ReconcileContext): Promise<boolean> {
    const { createRequestId, lastTask } = scope.status;
    if (api.createTokenIsVmUuid || createRequestId === undefined || lastTask?.operation === 'create') return false;
    const desired = await this.#desired(scope, prism);
    if (!desired.ok || (await api.prepare(desired.intent)) !== undefined) return false;
    const created = await api.createVm(desired.intent, createRequestId);
    if (created.taskUuid === undefined) return false;
    ctx.log.info({ requestId: createRequestId, task: created.taskUuid }, 'deleting: asked Prism what became of the unanswered create request');
    await scope.report(pending(Reason.Deleting, `finding the VM of create request ${createRequestId} to delete it`), { lastTask: submittedTask(created.taskUuid, 'create') });
    return true;
  }

  async #release(scope: AhvVmScope): Promise<void> {
    await removeFinalizer(this.#kube, AhvVmRef, scope.avm, FINALIZER);
    scope.released = true;
  }

  // ---- convergence ------------------------------------------------------------------------------------------------

  async #converge(scope: AhvVmScope, prism: Connected, api: PrismVmApi, ctx: ReconcileContext): Promise<Result> {
    // First, so that no VM can exist without the resource being held until it is deleted (CAPX does the same).
    scope.avm = await ensureFinalizer(this.#kube, AhvVmRef, scope.avm, FINALIZER);
    this.#warnIfInsecure(scope, prism);
    const followed = await this.#followTask(scope, api);
    if (followed === 'running') return this.#poll();
    if (followed === 'failed') return { requeueAfterMs: this.#backoff.next(ctx.request.key) };

    const desired = await this.#desired(scope, prism);
    if (!desired.ok) {
      await this.#reportProblem(scope, failed(desired.reason, desired.message), 'Create');
      return this.#driftCheck();
    }
    const problem = await api.prepare(desired.intent);
    if (problem !== undefined) {
      await this.#reportProblem(scope, failed(problem.reason, problem.message), 'Create');
      return this.#driftCheck();
    }
    const located = await this.#locate(scope, api, desired.intent, ctx);
    if (located.kind === 'done') return located.result;
    return this.#sync(scope, api, located.vm, desired.intent, ctx);
  }

  /**
   * Looks at the task the operator started last, if it has not ended yet: `running` (look again later), `failed`
   * (reported; retry after a back-off), or `done` (ended well, or with an edit conflict — which only means "read the
   * VM again and plan afresh" — or there was nothing to follow).
   */
  async #followTask(scope: AhvVmScope, api: PrismVmApi): Promise<'running' | 'failed' | 'done'> {
    const last = scope.status.lastTask;
    if (!isTaskPending(last)) return 'done';
    const task = await api.getTask(last.uuid);
    if (task === undefined) {
      await scope.record({ lastTask: { ...last, status: UNKNOWN_TASK_STATUS } });
      return 'done';
    }
    if (!isTaskFinished(task)) {
      if (task.status !== last.status) await scope.record({ lastTask: { ...last, status: task.status } });
      return 'running';
    }
    this.#metrics.taskFinished({ operation: last.operation, result: task.status.toLowerCase() });
    const record = finishedTask(task, last.operation);
    if (task.status === 'SUCCEEDED' && last.operation === 'create' && scope.status.uuid === undefined) {
      // v4: the VM's extId is known from its create task only.
      const uuid = vmUuidOfTask(task);
      await scope.record({ lastTask: record, ...(uuid === undefined ? {} : { uuid }) });
      return 'done';
    }
    if (task.status === 'SUCCEEDED' || api.isEditConflict(task)) {
      await scope.record({ lastTask: record });
      return 'done';
    }
    const message = `the ${last.operation} task ${last.uuid} ended ${task.status}: ${record.error ?? 'Prism gave no detail'}`;
    this.#event(scope, 'Warning', Reason.TaskFailed, eventActionOf(last.operation), message);
    await scope.report(failed(Reason.TaskFailed, message), { lastTask: record });
    return 'failed';
  }

  async #desired(scope: AhvVmScope, prism: Connected): Promise<DesiredVmResult> {
    const { spec } = scope.avm;
    const names = namesToResolve(spec, prism.defaultCluster);
    const resolveName = names.length === 0 || this.#names === undefined ? () => [] : await this.#names.resolverFor(names);
    return desiredVmSpec({ metadata: scope.avm.metadata, spec }, { defaultCluster: prism.defaultCluster, resolveName });
  }

  /**
   * Finds the resource's VM: by the UUID in status, else by the ownership marker and the exact name. Creates one only
   * when neither finds it, and only after recording the UUID it will have.
   */
  async #locate(scope: AhvVmScope, api: PrismVmApi, intent: PrismVmIntent, ctx: ReconcileContext): Promise<Located> {
    const { uuid, lastTask, state, createRequestId } = scope.status;
    const createFailed = lastTask?.operation === 'create' && isTaskFailure(lastTask);
    if (uuid !== undefined) {
      const vm = await api.getVm(uuid);
      if (vm !== undefined) return { kind: 'vm', vm };
      if (createFailed) {
        return this.#create(scope, api, intent, ctx, { message: `the create of VM ${uuid} failed; creating the VM with a new UUID` });
      }
      const existed = state !== undefined || (lastTask?.operation === 'create' && lastTask.status === 'SUCCEEDED');
      if (existed) {
        const message = `VM ${uuid} was deleted outside Kubernetes; creating it again`;
        ctx.log.warn({ vm: uuid }, message);
        this.#event(scope, 'Warning', 'VmDeletedOutOfBand', 'Create', message);
        // v3 tries the same idempotence UUID first (Prism says 409 when it is spent); a v4 request id would only
        // answer the old create's task, so v4 sends a new one.
        return this.#create(scope, api, intent, ctx, { reason: Reason.Recreating, message, ...(api.createTokenIsVmUuid ? { reuseToken: uuid } : {}) });
      }
      // Recorded but never seen: the POST may not have reached Prism (the operator stopped in between). The same
      // idempotence UUID makes sending it again safe: Prism creates the VM once.
      return this.#create(scope, api, intent, ctx, api.createTokenIsVmUuid ? { reuseToken: uuid } : {});
    }
    const { name, uid } = identityOf(scope.avm);
    const lookup = findOwnedVm(await api.listVmsByName(name), uid, name);
    switch (lookup.kind) {
      case 'found': {
        const vm = lookup.vm;
        await scope.record(observedVmStatus(vm));
        ctx.log.info({ vm: vm.metadata.uuid }, 'found the VM by its ownership marker; recorded its UUID');
        this.#event(scope, 'Normal', 'Adopted', 'Find', `found VM ${vm.metadata.uuid}, which carries this resource's ownership marker`);
        return { kind: 'vm', vm };
      }
      case 'ambiguous':
        await this.#reportProblem(scope, failed(lookup.reason, lookup.message), 'Create');
        return { kind: 'done', result: this.#driftCheck() };
      case 'none':
        // v4: a create whose request id is recorded may have been sent (and may still be running, which no list
        // shows): sending it again with the same id answers its task and makes no second VM.
        if (!api.createTokenIsVmUuid && createRequestId !== undefined && !createFailed) {
          return this.#create(scope, api, intent, ctx, { reuseToken: createRequestId });
        }
        return this.#create(scope, api, intent, ctx, {});
    }
  }

  /**
   * POST /vms with an idempotence UUID. A fresh UUID is reserved and written to status before the POST, fenced on
   * the resource's version: a crash after the POST leaves the UUID behind, and the next reconcile finds the VM by it
   * or sends the same POST again, which cannot make a second VM.
   */
  async #create(
    scope: AhvVmScope,
    api: PrismVmApi,
    intent: PrismVmIntent,
    ctx: ReconcileContext,
    how: { reuseToken?: string; reason?: string; message?: string },
  ): Promise<Located> {
    const reason = how.reason ?? Reason.Creating;
    const userData = await cloudInitUserData(this.#kube, scope.avm);
    if (!userData.ok) {
      await this.#reportProblem(scope, failed(userData.reason, userData.message), 'Create');
      return { kind: 'done', result: this.#driftCheck() };
    }
    let body = intent;
    if (userData.base64 !== undefined) {
      const withUserData = withCloudInitUserData(intent, userData.base64);
      if (!withUserData.ok) {
        await this.#reportProblem(scope, failed(withUserData.reason, withUserData.message), 'Create');
        return { kind: 'done', result: this.#driftCheck() };
      }
      body = withUserData.intent;
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
      created = await api.createVm(body, token);
    } catch (error) {
      if (how.reuseToken === undefined || !api.isSpentCreateToken(error)) throw error;
      ctx.log.info({ vm: token }, 'the recorded UUID was used by a VM that is gone; reserving a new one');
      return this.#create(scope, api, intent, ctx, { reason, message: how.message ?? `VM ${token} is gone; creating the VM with a new UUID` });
    }
    const task = created.taskUuid;
    ctx.log.info({ vm: created.uuid, requestId: api.createTokenIsVmUuid ? undefined : token, task, alreadyExisted: created.alreadyExisted, api: api.version }, 'create request accepted by Prism');
    if (!created.alreadyExisted) this.#event(scope, 'Normal', 'Created', 'Create', `Prism Central is creating ${what(token)} (task ${task ?? 'unknown'})`);
    await scope.report(pending(reason, how.message ?? `creating ${what(token)}`), {
      ...(how.reuseToken === undefined ? {} : FORGET_VM),
      ...tokenFields(token),
      lastTask: task === undefined ? undefined : submittedTask(task, 'create'),
    });
    return { kind: 'done', result: this.#poll() };
  }

  /** Plans the update from the VM as Prism shows it now and takes its first step, or reports why there is none. */
  async #sync(scope: AhvVmScope, api: PrismVmApi, vm: PrismVm, intent: PrismVmIntent, ctx: ReconcileContext): Promise<Result> {
    const observed = observedVmStatus(vm);
    const { uuid } = observed;
    const plan = planUpdate(vm, intent, {
      consentToPowerCycle: scope.avm.spec.allow_power_cycle ?? false,
      powerCycleInProgress: scope.status.powerCycleInProgress ?? false,
    });
    switch (plan.kind) {
      case 'wait':
        await scope.report(pending(plan.reason, plan.message), observed);
        return this.#poll();
      case 'blocked': {
        // Waiting for consent is by design; a change Prism cannot make needs someone to change the spec back.
        const outcome = plan.reason === 'PowerCycleRequired' ? pending(plan.reason, plan.message) : failed(plan.reason, plan.message);
        await this.#reportProblem(scope, outcome, 'Update', observed);
        return this.#driftCheck();
      }
      case 'in-sync':
        if (vm.status.state === 'ERROR') {
          // A failed change leaves the VM in ERROR until an update succeeds (TF #131); its own spec clears it.
          const detail = vm.status.message_list?.map((m) => m.message ?? m.reason).join('; ') ?? 'no detail';
          return this.#applyStep(scope, api, vm, intent, { action: 'apply-spec' }, `Prism shows VM ${uuid} in ERROR (${detail}); sending its spec again to clear it`, ctx);
        }
        await scope.report(available(`VM ${uuid} matches the spec`), { ...observed, powerCycleInProgress: undefined });
        this.#backoff.reset(ctx.request.key);
        if (awaitsAddress(vm, observed.ipAddresses)) return { requeueAfterMs: Math.min(this.#intervals.addressPollMs, this.#intervals.driftCheckMs) };
        return this.#driftCheck();
      case 'steps': {
        const [step] = plan.steps;
        if (step === undefined) throw new Error('planUpdate returned no steps');
        if (this.#isDrift(scope.avm)) {
          const changes = describeDiff(plan.diff);
          ctx.log.info({ vm: uuid, changes }, 'the VM was changed outside Kubernetes; reverting');
          this.#event(scope, 'Normal', 'DriftDetected', 'Update', `VM ${uuid} was changed in Prism Central (${changes}); putting the spec back`);
        }
        // Recorded before the VM goes off, so that a reconcile after a restart still powers it on again.
        if (plan.powerCycle && scope.status.powerCycleInProgress !== true) await scope.record({ powerCycleInProgress: true });
        return this.#applyStep(scope, api, vm, intent, step, messageFor(step, uuid, plan.diff), ctx);
      }
    }
  }

  /** One PUT, built from the VM as just read; its task is followed by requeueing. */
  async #applyStep(
    scope: AhvVmScope,
    api: PrismVmApi,
    vm: PrismVm,
    intent: PrismVmIntent,
    step: UpdateStep,
    message: string,
    ctx: ReconcileContext,
  ): Promise<Result> {
    const uuid = vm.metadata.uuid;
    const operation: TaskOperation = step.action === 'apply-spec' ? 'update' : step.action;
    let task: string;
    try {
      task = await api.applyStep(vm, step, intent);
    } catch (error) {
      if (!api.isEditConflict(error)) throw error;
      // The VM changed between our GET and PUT: read it again and plan afresh.
      ctx.log.info({ vm: uuid }, 'edit conflict: the VM changed meanwhile; planning again');
      return this.#poll();
    }
    ctx.log.info({ vm: uuid, task, step: step.action }, message);
    const reason = reasonWhileRunning(operation);
    this.#event(scope, 'Normal', reason, eventActionOf(operation), `${message} (task ${task})`);
    await scope.report(pending(reason, message), { ...observedVmStatus(vm), lastTask: submittedTask(task, operation) });
    return this.#poll();
  }

  /** The VM differs although the spec has not changed since the operator last found them in sync. */
  #isDrift(avm: AhvVm): boolean {
    return avm.status?.observedGeneration === avm.metadata.generation && readyReasonOf(avm) === Reason.Available;
  }

  // ---- reporting --------------------------------------------------------------------------------------------------

  async #prismFailed(scope: AhvVmScope, failure: PrismFailure, error: unknown, ctx: ReconcileContext): Promise<Result> {
    ctx.log.warn({ err: error }, `Prism Central: ${failure.message}`);
    await this.#reportProblem(scope, failed(failure.reason, failure.message), 'Connect');
    const key = ctx.request.key;
    switch (failure.kind) {
      case 'access':
        return { requeueAfterMs: this.#gate.closedForMs() || this.#backoff.next(key) };
      case 'rate-limited':
        return { requeueAfterMs: failure.retryAfterMs ?? this.#backoff.next(key) };
      case 'unavailable':
      case 'refused':
        return { requeueAfterMs: this.#backoff.next(key) };
    }
  }

  /** Reports a problem, with a Warning Event when it is a new one (not on every reconcile that finds it again). */
  async #reportProblem(scope: AhvVmScope, outcome: Outcome, action: string, fields: StatusFields = {}): Promise<void> {
    if (await scope.report(outcome, fields)) this.#event(scope, 'Warning', outcome.reason, action, outcome.message);
  }

  #warnIfInsecure(scope: AhvVmScope, prism: Connected): void {
    const uid = scope.avm.metadata.uid;
    if (!prism.insecure || uid === undefined || this.#warnedInsecure.has(uid)) return;
    this.#warnedInsecure.add(uid);
    this.#event(scope, 'Warning', 'InsecureConnection', 'Connect', prism.warnings.join(' '));
  }

  #event(scope: AhvVmScope, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void {
    this.#events.event(scope.avm, { type, reason, action, note });
  }

  #poll(): Result {
    return { requeueAfterMs: this.#intervals.taskPollMs };
  }

  #driftCheck(): Result {
    return { requeueAfterMs: Math.round(this.#intervals.driftCheckMs * (0.9 + 0.2 * Math.random())) };
  }
}

function accessResultOf(failure: PrismFailure | undefined): AccessResult {
  if (failure?.kind === 'access') return 'refused';
  // Prism answered the request itself: the credentials were accepted.
  if (failure?.kind === 'refused') return 'granted';
  return 'inconclusive';
}

/** A running VM with NICs whose addresses DHCP has yet to hand out (IPAM subnets assign them at creation). */
function awaitsAddress(vm: PrismVm, addresses: readonly string[]): boolean {
  return addresses.length === 0 && (vm.status.resources?.nic_list?.length ?? 0) > 0 && vm.status.resources?.power_state === 'ON';
}

function identityOf(avm: AhvVm): { name: string; uid: string } {
  const { name, uid } = avm.metadata;
  if (name === undefined || uid === undefined) throw new Error('an AhvVm read from the API server has a name and a uid');
  return { name, uid };
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
