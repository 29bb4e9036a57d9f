import type { InventoryLookupOptions, PrismInventoryKind, PrismTask, PrismVm, PrismVmIntent } from '../prism/v3/prism-types.ts';
import type { UpdateStep } from '../desired/update-plan.ts';
import type { VmDiff } from '../desired/vm-diff.ts';

/** Which Prism Central API the operator speaks for VMs: `auto` asks the PC once per connection (v4 where served). */
export type PrismApiSetting = 'v3' | 'v4' | 'auto';
export type PrismApiVersion = 'v3' | 'v4';
export const PRISM_API_SETTINGS: readonly PrismApiSetting[] = ['v3', 'v4', 'auto'];

/** What a create request answered. */
export interface CreateAccepted {
  /** The VM's UUID when the request decides it (v3's idempotence UUID); on v4 the task names it once done. */
  uuid: string | undefined;
  taskUuid: string | undefined;
  /** An earlier request with the same token had already made the VM (v3 says so with a 409). */
  alreadyExisted: boolean;
}

/** Why a desired VM cannot be expressed on this API (v4: a category value Prism does not have). */
export interface PreparationProblem {
  reason: string;
  message: string;
}

/**
 * The VM operations the reconciler makes, in the v3 shapes its pure logic reads (`PrismVm`, `PrismVmIntent`,
 * `PrismTask`), over Prism Central v3 or v4. Both keep the same promise: a create is sent with a token recorded in
 * status before the request, and the same token never makes a second VM.
 */
export interface PrismVmApi {
  readonly version: PrismApiVersion;
  /**
   * v3: the create token (an idempotence UUID) becomes the VM's UUID, so it is recorded as `status.uuid`. v4: it is
   * the `NTNX-Request-Id`, recorded as `status.createRequestId`; the VM's extId comes from the create task.
   */
  readonly createTokenIsVmUuid: boolean;
  /**
   * UUIDs (v4: extIds, the same values) of the clusters, images or subnets named exactly `name`, through this API's own
   * inventory calls (v3: `POST /clusters/list` …; v4: clustermgmt clusters, networking subnets, vmm content images).
   * Prism Central's own cluster entity is never one; with `clusterUuid`, only subnets a VM on that cluster can use.
   */
  listEntityUuidsByName(kind: PrismInventoryKind, name: string, options?: InventoryLookupOptions): Promise<string[]>;
  /** Resolves what the intent refers to that only this API needs (v4: category extIds). */
  prepare(intent: PrismVmIntent): Promise<PreparationProblem | undefined>;
  getVm(uuid: string): Promise<PrismVm | undefined>;
  listVmsByName(name: string): Promise<PrismVm[]>;
  newCreateToken(): Promise<string>;
  createVm(intent: PrismVmIntent, token: string): Promise<CreateAccepted>;
  /**
   * Sends one update step for `current` (as just read by `getVm`); returns its task. v3 makes an `apply-spec` in one
   * PUT; v4 makes it one request at a time (the VM's configuration, then each disk and NIC), so the same step is
   * planned again until the VM matches. `diff` is the one the plan was made from (`planUpdate`), so the VM is compared
   * with its AhvVm once per reconcile.
   */
  applyStep(current: PrismVm, step: UpdateStep, desired: PrismVmIntent, diff: VmDiff): Promise<string>;
  /** Deletes `current` (as just read); its task, or undefined when it is already gone. */
  deleteVm(current: PrismVm): Promise<string | undefined>;
  getTask(uuid: string): Promise<PrismTask | undefined>;
  /** The request or task failed because the VM changed meanwhile: read it again and plan afresh. */
  isEditConflict(failure: unknown): boolean;
  /** A create token that can never make a VM again (v3: a 409 for an idempotence UUID whose VM is gone). */
  isSpentCreateToken(error: unknown): boolean;
}
