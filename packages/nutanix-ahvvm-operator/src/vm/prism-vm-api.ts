import type { ImageSummary } from './image-lookup.ts';
import type { UpdateStep } from './update-plan.ts';
import type { VmDiff } from './vm-diff.ts';
import type { DesiredGpu, DesiredVm, GpuRequest, ObservedVm } from './vm-model.ts';
import type { VmTask } from './vm-task.ts';

/** Which Prism Central API the operator speaks for VMs: `auto` asks the PC once per connection (v4 where served). */
export type PrismApiSetting = 'v3' | 'v4' | 'auto';
export type PrismApiVersion = 'v3' | 'v4';

/** Kinds of Prism entities a VM refers to, which an AhvVm may name instead of giving their UUID. */
export type PrismEntityKind = 'cluster' | 'image' | 'subnet' | 'storage_container' | 'project';

export interface InventoryLookupOptions {
  /**
   * Subnets: keep those a VM on this cluster can use (an overlay subnet, or a VLAN subnet on the cluster), as CAPX
   * does. Storage containers: keep those of this cluster (each cluster has its own, often of the same names).
   */
  clusterUuid?: string;
}

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
 * The VM operations the reconciler makes, in the operator's own terms (`DesiredVm`, `ObservedVm`, `VmTask`), over
 * Prism Central v3 (`prism/v3`) or v4 (`prism/v4`), each of which owns its translation and its request bodies. Both
 * keep the same promise: a create is sent with a token recorded in status before the request, and the same token
 * never makes a second VM.
 */
export interface PrismVmApi {
  readonly version: PrismApiVersion;
  /**
   * v3: the create token (an idempotence UUID) becomes the VM's UUID, so it is recorded as `status.uuid`. v4: it is
   * the `NTNX-Request-Id`, recorded as `status.createRequestId`; the VM's extId comes from the create task.
   */
  readonly createTokenIsVmUuid: boolean;
  /**
   * UUIDs (v4: extIds, the same values) of the clusters, images, subnets or storage containers named exactly `name`,
   * through this API's own inventory calls (v3: `POST /clusters/list` …, storage containers through `POST /groups`;
   * v4: clustermgmt clusters and storage containers, networking subnets, vmm content images). Prism Central's own
   * cluster entity is never one; with `clusterUuid`, only subnets a VM on that cluster can use and that cluster's
   * storage containers.
   */
  listEntityUuidsByName(kind: PrismEntityKind, name: string, options?: InventoryLookupOptions): Promise<string[]>;
  /** Every image, for an `image_lookup` (v3: `POST /images/list`; v4: vmm content images), over all pages. */
  listImages(): Promise<ImageSummary[]>;
  /**
   * The GPUs of cluster `clusterUuid` that match `request` and are free, as CAPX finds them: v3 the hosts' `gpu_list`
   * entries with status UNUSED (POST /hosts/list, CAPX v1.7.0 `GetGPUsForPE`); v4 the physical GPU profiles, then the
   * virtual ones, not in use (clustermgmt, CAPX v1.10.3 `GetGPUsForPE`).
   */
  findFreeGpus(clusterUuid: string, request: GpuRequest): Promise<DesiredGpu[]>;
  /** Resolves what the desired VM refers to that only this API needs (v4: category extIds). */
  prepare(desired: DesiredVm): Promise<PreparationProblem | undefined>;
  getVm(uuid: string): Promise<ObservedVm | undefined>;
  listVmsByName(name: string): Promise<ObservedVm[]>;
  newCreateToken(): Promise<string>;
  createVm(desired: DesiredVm, token: string): Promise<CreateAccepted>;
  /**
   * Sends one update step for `current` (as just read by `getVm` or `listVmsByName` of this API); returns its task.
   * `diff` is the one the plan was made from, so the VM is compared with its AhvVm once per reconcile. v3 makes an
   * `apply-spec` in one PUT; v4 makes it one request at a time (the VM's configuration, then each disk and NIC), so
   * the same step is planned again until the VM matches.
   */
  applyStep(current: ObservedVm, step: UpdateStep, desired: DesiredVm, diff: VmDiff): Promise<string>;
  /** Deletes `current` (as just read); its task, or undefined when it is already gone. */
  deleteVm(current: ObservedVm): Promise<string | undefined>;
  getTask(uuid: string): Promise<VmTask | undefined>;
  /** The request or task failed because the VM changed meanwhile: read it again and plan afresh. */
  isEditConflict(failure: unknown): boolean;
  /** A create token that can never make a VM again (v3: a 409 for an idempotence UUID whose VM is gone). */
  isSpentCreateToken(error: unknown): boolean;
}
