import type { ImageSummary } from '../../vm/image-lookup.ts';
import type { CreateAccepted, InventoryLookupOptions, PreparationProblem, PrismEntityKind, PrismVmApi } from '../../vm/prism-vm-api.ts';
import type { UpdateStep } from '../../vm/update-plan.ts';
import { isGpuMode, type DesiredGpu, type DesiredVm, type GpuRequest, type ObservedVm } from '../../vm/vm-model.ts';
import { isVmTask, type VmTask } from '../../vm/vm-task.ts';
import { isEditConflict } from '../edit-conflict.ts';
import { PrismApiError } from '../prism-errors.ts';
import type { PrismClient } from './prism-client.ts';
import type { PrismVm } from './prism-types.ts';
import { putBodyFor } from './v3-put-body.ts';
import { observedVmFromV3, v3CreateBody, vmTaskFromV3 } from './v3-translation.ts';

/** `client_identifier` of the idempotence UUIDs the operator reserves. */
const IDEMPOTENCE_CLIENT = 'nutanix-ahvvm-operator';

/**
 * The v3 API behind the reconciler's `PrismVmApi`: VMs, their `spec_version`ed PUTs (power changes included),
 * idempotence UUIDs, the v3 inventory lists and, for storage containers, the groups API.
 *
 * A v3 PUT replaces the VM's whole spec, so it must send back everything the GET showed, not only what the model
 * knows. The v3 VM of each read travels with the `ObservedVm` it was translated into (a WeakMap), so a step is built
 * from the very read its plan was made from, `spec_version` included: a VM changed in between is an edit conflict.
 */
export class PrismV3VmApi implements PrismVmApi {
  readonly version = 'v3';
  readonly createTokenIsVmUuid = true;
  readonly #client: PrismClient;
  readonly #read = new WeakMap<ObservedVm, PrismVm>();

  constructor(client: PrismClient) {
    this.#client = client;
  }

  prepare(): Promise<PreparationProblem | undefined> {
    return Promise.resolve(undefined);
  }

  listEntityUuidsByName(kind: PrismEntityKind, name: string, options?: InventoryLookupOptions): Promise<string[]> {
    return this.#client.listEntityUuidsByName(kind, name, options);
  }

  /** CAPX v1.7.0 `GetGPU`: the hosts of the cluster, their GPUs with status UNUSED, by device_id or name. */
  async findFreeGpus(clusterUuid: string, request: GpuRequest): Promise<DesiredGpu[]> {
    const hosts = await this.#client.listHosts();
    return hosts
      .filter((host) => host.status?.cluster_reference?.uuid?.toLowerCase() === clusterUuid.toLowerCase())
      .flatMap((host) => host.status?.resources?.gpu_list ?? [])
      .filter((gpu) => gpu.status === 'UNUSED' && (request.deviceId === undefined ? gpu.name === request.name : gpu.device_id === request.deviceId))
      .flatMap((gpu) => (gpu.device_id === undefined || !isGpuMode(gpu.mode) ? [] : [{ mode: gpu.mode, vendor: gpu.vendor ?? 'UNKNOWN', deviceId: gpu.device_id, ...(gpu.name === undefined ? {} : { name: gpu.name }) }]));
  }

  async listImages(): Promise<ImageSummary[]> {
    return (await this.#client.listImages()).map((image) => {
      const created = image.metadata.creation_time;
      return { uuid: image.metadata.uuid, name: image.spec?.name ?? image.status?.name ?? '', ...(created === undefined ? {} : { createTime: created }) };
    });
  }

  async getVm(uuid: string): Promise<ObservedVm | undefined> {
    const vm = await this.#client.getVm(uuid);
    return vm === undefined ? undefined : this.#translate(vm);
  }

  async listVmsByName(name: string): Promise<ObservedVm[]> {
    return (await this.#client.listVmsByName(name)).map((vm) => this.#translate(vm));
  }

  async newCreateToken(): Promise<string> {
    const [reserved] = await this.#client.createIdempotenceIdentifiers(1, { clientIdentifier: IDEMPOTENCE_CLIENT });
    if (reserved === undefined) throw new Error('Prism reserved no idempotence UUID');
    return reserved;
  }

  createVm(desired: DesiredVm, token: string): Promise<CreateAccepted> {
    return this.#client.createVm(v3CreateBody(desired), { idempotenceUuid: token });
  }

  /** One PUT makes the whole step, so the diff is not needed to choose what to send. */
  async applyStep(current: ObservedVm, step: UpdateStep, desired: DesiredVm): Promise<string> {
    const body = putBodyFor(step, this.#v3VmOf(current), desired);
    return this.#client.updateVm(current.uuid, body);
  }

  deleteVm(current: ObservedVm): Promise<string | undefined> {
    return this.#client.deleteVm(current.uuid);
  }

  async getTask(uuid: string): Promise<VmTask | undefined> {
    const task = await this.#client.getTask(uuid);
    return task === undefined ? undefined : vmTaskFromV3(task);
  }

  isEditConflict(failure: unknown): boolean {
    return (failure instanceof PrismApiError || isVmTask(failure)) && isEditConflict(failure);
  }

  isSpentCreateToken(error: unknown): boolean {
    return error instanceof PrismApiError && error.method === 'POST' && error.path === '/vms' && error.status === 409;
  }

  #translate(vm: PrismVm): ObservedVm {
    const observed = observedVmFromV3(vm);
    this.#read.set(observed, vm);
    return observed;
  }

  #v3VmOf(current: ObservedVm): PrismVm {
    const vm = this.#read.get(current);
    if (vm === undefined) throw new TypeError(`VM ${current.uuid} was not read through this API: a v3 PUT needs the full VM its plan was made from`);
    return vm;
  }
}
