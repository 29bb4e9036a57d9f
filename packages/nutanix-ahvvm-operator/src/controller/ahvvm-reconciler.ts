import { ensureFinalizer, kindBeingRemoved, type KubeClient, type ObjectReconciler, type ReconcileContext, type ReconcileRequest, type StatusWriter } from '@k8s-operators/controller-core';
import { AHVVM_CRD_NAME, AhvVmRef } from '../api/ahvvm-ref.ts';
import type { AhvVm } from '../api/ahvvm-resource.ts';
import { ABSENT_STATE, VmStateGauge, type AhvVmMetrics } from '../metrics/ahvvm-metrics.ts';
import { locateOrCreate } from './ahvvm-create.ts';
import { finalize, FINALIZER, keepOnUninstall, letGo, needsPrismToLetGo, release } from './ahvvm-finalize.ts';
import { AhvVmReporter, type AhvVmEvents } from './ahvvm-reporter.ts';
import { AhvVmScope } from './ahvvm-scope.ts';
import { failed, Reason } from '../desired/desired-ahvvm-status.ts';
import { sync } from './ahvvm-sync.ts';
import { EntityNameCache, prismEntityLookup } from './entity-name-cache.ts';
import { followTask } from './follow-task.ts';
import { PrismAccessGate, type AccessResult } from './prism-access-gate.ts';
import type { PrismConnection } from './prism-connection.ts';
import { classifyPrismFailure, type PrismFailure } from './prism-failure.ts';
import type { PhaseDeps, PhaseRun, Result } from './reconcile-phase.ts';
import { RequeueTiming, type ReconcileIntervals } from './requeue-timing.ts';
import { resolveDesiredVm } from './resolve-desired-vm.ts';

export { FINALIZER } from './ahvvm-finalize.ts';
export const FIELD_MANAGER = 'nutanix-ahvvm-operator';

export interface AhvVmReconcilerOptions {
  /** Patches finalizers, reads Secrets, and asks whether the AhvVm CRD is being deleted. */
  kube: KubeClient;
  /** The manager's writer for FIELD_MANAGER: its writes are read back by `manager.reader` before the cache shows them. */
  statusWriter: StatusWriter;
  prism: PrismConnection;
  events: AhvVmEvents;
  metrics: AhvVmMetrics;
  intervals?: Partial<ReconcileIntervals>;
  /** Default: a gate closed for 10 s after the first refusal, doubling to 5 minutes. */
  gate?: PrismAccessGate;
  now?: () => Date;
}

/**
 * The AhvVm reconcile: one level-triggered pass that reads the resource and its VM and takes at most one step
 * towards the spec, then requeues to see how the step went. It never waits for a Prism task while holding a worker.
 *
 *   finalizer → follow the last task → desired VM → find the VM (UUID in status, else the ownership marker and the
 *   exact name) → create it (idempotence UUID recorded first) or plan the update → one request → requeue
 *
 * This class only dispatches, as CAPX splits reconcileDelete from reconcileNormal: deletion is `finalize`, a VM not
 * found is `locateOrCreate`, a VM found is `sync`.
 */
export class AhvVmReconciler implements ObjectReconciler<AhvVm> {
  readonly #kube: KubeClient;
  readonly #prism: PrismConnection;
  readonly #gate: PrismAccessGate;
  readonly #now: () => Date;
  readonly #writer: StatusWriter;
  readonly #states: VmStateGauge;
  readonly #deps: PhaseDeps;

  constructor(options: AhvVmReconcilerOptions) {
    this.#kube = options.kube;
    this.#prism = options.prism;
    this.#gate = options.gate ?? new PrismAccessGate();
    this.#now = options.now ?? ((): Date => new Date());
    this.#writer = options.statusWriter;
    this.#states = new VmStateGauge(options.metrics.vms);
    const { prism } = options;
    this.#deps = {
      kube: options.kube,
      report: new AhvVmReporter(options.events),
      requeue: new RequeueTiming(options.intervals),
      metrics: options.metrics,
      names: prism.configured ? new EntityNameCache(prismEntityLookup(() => prism.vms())) : undefined,
    };
  }

  async reconcile(avm: AhvVm, ctx: ReconcileContext): Promise<Result> {
    const { key } = ctx.request;
    const scope = new AhvVmScope(avm, this.#writer, this.#now);
    try {
      return await this.#reconcile(scope, ctx);
    } finally {
      if (scope.released) this.#states.delete(key);
      else this.#states.set(key, scope.status.state ?? ABSENT_STATE);
    }
  }

  /** The AhvVm is gone (its finalizer was released): forget its state series. */
  gone(request: ReconcileRequest): void {
    this.#states.delete(request.key);
  }

  async #reconcile(scope: AhvVmScope, ctx: ReconcileContext): Promise<Result> {
    const deleting = scope.avm.metadata.deletionTimestamp !== undefined;
    // Neither needs Prism, so both come before its configuration and its gate: an operator that cannot reach Prism
    // still lets its AhvVms go when the VMs are to stay.
    if (deleting && !needsPrismToLetGo(scope)) {
      await letGo(this.#deps, scope, ctx);
      return undefined;
    }
    if (deleting && (await this.#uninstalling(scope, ctx))) {
      await keepOnUninstall(this.#deps, scope, ctx);
      return undefined;
    }
    const prism = this.#prism;
    if (!prism.configured) return this.#unconfigured(scope, prism.problem);
    const admission = this.#gate.admit();
    if (admission.kind === 'closed') {
      await this.#deps.report.problem(scope, failed(admission.reason, admission.message), 'Connect');
      return this.#deps.requeue.waitOrPrismRetry(admission.retryInMs);
    }
    try {
      const run: PhaseRun = { scope, prism, api: await prism.vms(), ctx };
      const result = deleting ? await finalize(this.#deps, run) : await this.#converge(run);
      this.#gate.release(admission, 'granted');
      return result;
    } catch (error) {
      const failure = classifyPrismFailure(error);
      this.#gate.release(admission, accessResultOf(failure), failure);
      if (failure === undefined) throw error;
      return this.#prismFailed(scope, failure, error, ctx);
    }
  }

  /**
   * Whether this deletion is the AhvVm kind's (its CRD deleted: the operator is being uninstalled) rather than a
   * user's. Asked with one GET on deletion reconciles only, until the VM's DELETE is sent: a delete task already in
   * flight was a user's request, and is finished. An error (the operator's role deleted first, say) fails the
   * reconcile before anything is sent to Prism.
   */
  async #uninstalling(scope: AhvVmScope, ctx: ReconcileContext): Promise<boolean> {
    if (scope.status.lastTask?.operation === 'delete') return false;
    return kindBeingRemoved(this.#kube, AHVVM_CRD_NAME, ctx.signal);
  }

  /**
   * Without a Prism connection nothing can be done but say so; a deletion that needs Prism (a VM to delete) lets the
   * finalizer go only where no VM is at stake.
   */
  async #unconfigured(scope: AhvVmScope, problem: string): Promise<Result> {
    if (scope.avm.metadata.deletionTimestamp !== undefined) {
      if (scope.status.uuid === undefined) {
        await release(this.#deps.kube, scope);
        return undefined;
      }
      const message = `cannot delete VM ${scope.status.uuid} without Prism Central (to leave the VM, remove the finalizer ${FINALIZER}): ${problem}`;
      await this.#deps.report.problem(scope, failed(Reason.ConfigurationError, message), 'Delete');
      return undefined;
    }
    // Nothing to retry until the operator restarts with a fixed Secret.
    await this.#deps.report.problem(scope, failed(Reason.ConfigurationError, problem), 'Connect');
    return undefined;
  }

  async #converge(run: PhaseRun): Promise<Result> {
    const deps = this.#deps;
    const { scope, prism, api } = run;
    // First, so that no VM can exist without the resource being held until it is deleted (CAPX does the same).
    scope.avm = await ensureFinalizer(deps.kube, AhvVmRef, scope.avm, FINALIZER);
    deps.report.warnIfInsecure(scope, prism);
    const followed = await followTask(deps, scope, api);
    if (followed === 'running') return deps.requeue.poll();
    if (followed === 'failed') return deps.requeue.prismRetry();

    const desired = await resolveDesiredVm(scope, prism, deps.names);
    if (!desired.ok) {
      await deps.report.problem(scope, failed(desired.reason, desired.message), 'Create');
      return deps.requeue.driftCheck();
    }
    const problem = await api.prepare(desired.vm);
    if (problem !== undefined) {
      await deps.report.problem(scope, failed(problem.reason, problem.message), 'Create');
      return deps.requeue.driftCheck();
    }
    const located = await locateOrCreate(deps, run, desired.vm);
    if (located.kind === 'done') return located.result;
    return sync(deps, run, located.vm, desired.vm);
  }

  async #prismFailed(scope: AhvVmScope, failure: PrismFailure, error: unknown, ctx: ReconcileContext): Promise<Result> {
    ctx.log.warn({ err: error }, `Prism Central: ${failure.message}`);
    await this.#deps.report.problem(scope, failed(failure.reason, failure.message), 'Connect');
    // The AhvVm's Prism back-off, unless Prism or the gate said how long to wait.
    const { requeue } = this.#deps;
    switch (failure.kind) {
      case 'access':
        return requeue.waitOrPrismRetry(this.#gate.closedForMs());
      case 'rate-limited':
        return requeue.waitOrPrismRetry(failure.retryAfterMs);
      case 'unavailable':
      case 'refused':
        return requeue.prismRetry();
    }
  }
}

function accessResultOf(failure: PrismFailure | undefined): AccessResult {
  if (failure?.kind === 'access') return 'refused';
  // Prism answered the request itself: the credentials were accepted.
  if (failure?.kind === 'refused') return 'granted';
  return 'inconclusive';
}
