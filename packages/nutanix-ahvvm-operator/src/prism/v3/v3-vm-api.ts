import { isEditConflict } from '../edit-conflict.ts';
import { PrismApiError } from '../prism-errors.ts';
import type { UpdateStep } from '../../desired/update-plan.ts';
import type { CreateAccepted, PreparationProblem, PrismVmApi } from '../../vm/vm-api.ts';
import type { PrismClient } from './prism-client.ts';
import { isTask, type InventoryLookupOptions, type PrismInventoryKind, type PrismTask, type PrismVm, type PrismVmIntent } from './prism-types.ts';
import { putBodyFor } from './put-body.ts';

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
