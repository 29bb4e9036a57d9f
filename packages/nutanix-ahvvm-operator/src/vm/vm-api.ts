import { isEditConflict } from '../prism/edit-conflict.ts';
import type { PrismClient } from '../prism/prism-client.ts';
import { PrismApiError } from '../prism/prism-errors.ts';
import type { InventoryLookupOptions, PrismInventoryKind, PrismTask, PrismVm, PrismVmIntent } from '../prism/prism-types.ts';
import { putBodyFor } from '../desired/apply-desired.ts';
import type { UpdateStep } from '../desired/update-plan.ts';

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
   * planned again until the VM matches.
   */
  applyStep(current: PrismVm, step: UpdateStep, desired: PrismVmIntent): Promise<string>;
  /** Deletes `current` (as just read); its task, or undefined when it is already gone. */
  deleteVm(current: PrismVm): Promise<string | undefined>;
  getTask(uuid: string): Promise<PrismTask | undefined>;
  /** The request or task failed because the VM changed meanwhile: read it again and plan afresh. */
  isEditConflict(failure: unknown): boolean;
  /** A create token that can never make a VM again (v3: a 409 for an idempotence UUID whose VM is gone). */
  isSpentCreateToken(error: unknown): boolean;
}

/** `client_identifier` of the idempotence UUIDs the operator reserves. */
const IDEMPOTENCE_CLIENT = 'nutanix-ahvvm-operator';

/** The v3 API: VMs, their `spec_version`ed PUTs (power changes included), idempotence UUIDs and the v3 inventory lists. */
export class PrismV3VmApi implements PrismVmApi {
  readonly version = 'v3';
  readonly createTokenIsVmUuid = true;
  readonly #client: PrismClient;

  constructor(client: PrismClient) {
    this.#client = client;
  }

  prepare(): Promise<PreparationProblem | undefined> {
    return Promise.resolve(undefined);
  }

  listEntityUuidsByName(kind: PrismInventoryKind, name: string, options?: InventoryLookupOptions): Promise<string[]> {
    return this.#client.listEntityUuidsByName(kind, name, options);
  }

  getVm(uuid: string): Promise<PrismVm | undefined> {
    return this.#client.getVm(uuid);
  }

  listVmsByName(name: string): Promise<PrismVm[]> {
    return this.#client.listVmsByName(name);
  }

  async newCreateToken(): Promise<string> {
    const [reserved] = await this.#client.createIdempotenceIdentifiers(1, { clientIdentifier: IDEMPOTENCE_CLIENT });
    if (reserved === undefined) throw new Error('Prism reserved no idempotence UUID');
    return reserved;
  }

  createVm(intent: PrismVmIntent, token: string): Promise<CreateAccepted> {
    return this.#client.createVm(intent, { idempotenceUuid: token });
  }

  applyStep(current: PrismVm, step: UpdateStep, desired: PrismVmIntent): Promise<string> {
    return this.#client.updateVm(current.metadata.uuid, putBodyFor(step, current, desired));
  }

  deleteVm(current: PrismVm): Promise<string | undefined> {
    return this.#client.deleteVm(current.metadata.uuid);
  }

  getTask(uuid: string): Promise<PrismTask | undefined> {
    return this.#client.getTask(uuid);
  }

  isEditConflict(failure: unknown): boolean {
    return (failure instanceof PrismApiError || isTask(failure)) && isEditConflict(failure);
  }

  isSpentCreateToken(error: unknown): boolean {
    return error instanceof PrismApiError && error.method === 'POST' && error.path === '/vms' && error.status === 409;
  }
}

export function isTask(value: unknown): value is PrismTask {
  return typeof value === 'object' && value !== null && typeof (value as PrismTask).uuid === 'string' && typeof (value as PrismTask).status === 'string';
}
