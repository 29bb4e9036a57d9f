import { randomUUID } from 'node:crypto';
import type { ImageSummary } from '../../vm/image-lookup.ts';
import type { CreateAccepted, InventoryLookupOptions, PreparationProblem, PrismEntityKind, PrismVmApi } from '../../vm/prism-vm-api.ts';
import type { UpdateStep } from '../../vm/update-plan.ts';
import type { VmDiff } from '../../vm/vm-diff.ts';
import type { DesiredGpu, DesiredVm, GpuRequest, ObservedVm } from '../../vm/vm-model.ts';
import { isVmTask, type VmTask } from '../../vm/vm-task.ts';
import { isEditConflict } from '../edit-conflict.ts';
import { PrismApiError } from '../prism-errors.ts';
import { isStaleEtag, odataString, type PrismV4Client, type PrismV4DeviceWrite, type PrismV4Vm } from './prism-v4-client.ts';
import { nextV4Change, type V4Change } from './v4-next-change.ts';
import { observedVmFromV4, v4CreateBody, v4DiskBody, v4GrownDiskBody, v4NicBody, v4UpdateBody, vmTaskFromV4 } from './v4-translation.ts';

/** The task error group of a v4 change that was queued behind another and found the ETag moved (TF PR #1047). */
export const ETAG_MISMATCH_GROUP = 'VM_ETAG_MISMATCH';

/** clustermgmt's vendor names as the vmm Gpu's vendor (CAPX v1.10.3 `gpuVendorStringToGpuVendor`). */
const GPU_VENDORS: Readonly<Record<string, string>> = { kNvidia: 'NVIDIA', kIntel: 'INTEL', kAmd: 'AMD' };

/** How long a category lookup is trusted; a value not found is asked again next time. */
const CATEGORY_TTL_MS = 5 * 60_000;

/**
 * The VMM v4.2 API behind the reconciler's `PrismVmApi`: VMs read and changed with their ETag, power changes as
 * actions, disks and NICs through the VM's sub-resources (one request per `apply-spec` step, see `nextV4Change`),
 * creates with the `NTNX-Request-Id` the reconciler recorded (so a repeat answers the first task), categories by
 * extId (looked up through the v4 categories API and kept for five minutes), and clusters, storage containers, subnets
 * and images named in a spec (or matched by an image lookup) looked up through their own v4 namespaces (clustermgmt,
 * networking, vmm content): nothing goes to v3.
 *
 * The ETag of each VM read travels with the `ObservedVm` it was translated into (a WeakMap), so a PUT, action or DELETE
 * always carries the ETag of the read its plan was made from: a VM changed in between is a 412, an edit conflict.
 */
export class PrismV4VmApi implements PrismVmApi {
  readonly version = 'v4';
  readonly createTokenIsVmUuid = false;
  readonly #client: PrismV4Client;
  readonly #read = new WeakMap<ObservedVm, { vm: PrismV4Vm; etag?: string }>();
  /** `key=value` → extId, and back. */
  readonly #categoryExtIds = new Map<string, { extId: string; at: number }>();
  readonly #categoryNames = new Map<string, readonly [string, string]>();
  readonly #now: () => number;

  constructor(client: PrismV4Client, now: () => number = Date.now) {
    this.#client = client;
    this.#now = now;
  }

  async prepare(desired: DesiredVm): Promise<PreparationProblem | undefined> {
    for (const [key, value] of Object.entries(desired.categories ?? {})) {
      const cached = this.#categoryExtIds.get(`${key}=${value}`);
      if (cached !== undefined && this.#now() - cached.at < CATEGORY_TTL_MS) continue;
      const extId = await this.#client.findCategoryExtId(key, value);
      if (extId === undefined) return { reason: 'CategoryNotFound', message: `category ${key}=${value} does not exist in Prism Central` };
      this.#categoryExtIds.set(`${key}=${value}`, { extId, at: this.#now() });
      this.#categoryNames.set(extId.toLowerCase(), [key, value]);
    }
    return undefined;
  }

  listEntityUuidsByName(kind: PrismEntityKind, name: string, options?: InventoryLookupOptions): Promise<string[]> {
    return this.#client.listEntityExtIdsByName(kind, name, options);
  }

  /**
   * CAPX v1.10.3 `GetGPUsForPE` (controllers/helpers.go): the physical profiles with that deviceId or deviceName not in
   * use (passthrough graphics when the profile says so, else compute), then the virtual ones (VIRTUAL), with the vendor
   * mapped as its `gpuVendorStringToGpuVendor`. CAPX picks one of them at random; the reconciler takes the first.
   */
  async findFreeGpus(clusterUuid: string, request: GpuRequest): Promise<DesiredGpu[]> {
    const found: DesiredGpu[] = [];
    for (const kind of ['physical', 'virtual'] as const) {
      const field = kind === 'physical' ? 'physicalGpuConfig' : 'virtualGpuConfig';
      const filter = request.deviceId === undefined ? `${field}/deviceName eq ${odataString(request.name)}` : `${field}/deviceId eq ${String(request.deviceId)}`;
      for (const profile of await this.#client.listGpuProfiles(clusterUuid, kind, filter)) {
        const config = profile[field];
        if (config?.deviceId === undefined || config.isInUse === true) continue;
        const mode = kind === 'virtual' ? 'VIRTUAL' : config.type === 'PASSTHROUGH_GRAPHICS' ? 'PASSTHROUGH_GRAPHICS' : 'PASSTHROUGH_COMPUTE';
        found.push({ mode, vendor: GPU_VENDORS[config.vendorName ?? ''] ?? 'UNKNOWN', deviceId: config.deviceId, ...(config.deviceName === undefined ? {} : { name: config.deviceName }) });
      }
    }
    return found;
  }

  async listImages(): Promise<ImageSummary[]> {
    return (await this.#client.listImages()).map((image) => ({ uuid: image.extId, name: image.name ?? '', ...(image.createTime === undefined ? {} : { createTime: image.createTime }) }));
  }

  async getVm(uuid: string): Promise<ObservedVm | undefined> {
    const read = await this.#client.getVm(uuid);
    return read === undefined ? undefined : this.#translate(read.vm, read.etag);
  }

  async listVmsByName(name: string): Promise<ObservedVm[]> {
    return (await this.#client.listVmsByName(name)).map((vm) => this.#translate(vm, undefined));
  }

  /** A fresh `NTNX-Request-Id`; nothing to reserve in v4. */
  newCreateToken(): Promise<string> {
    return Promise.resolve(randomUUID());
  }

  async createVm(desired: DesiredVm, token: string): Promise<CreateAccepted> {
    const taskUuid = await this.#client.createVm(v4CreateBody(desired, this.#extIdOf), { requestId: token });
    return { uuid: undefined, taskUuid, alreadyExisted: false };
  }

  async applyStep(current: ObservedVm, step: UpdateStep, desired: DesiredVm, diff: VmDiff): Promise<string> {
    const { vm, etag } = await this.#withEtag(current);
    switch (step.action) {
      case 'power-off':
        return this.#client.powerAction(vm.extId, 'power-off', etag);
      case 'power-on':
        return this.#client.powerAction(vm.extId, 'power-on', etag);
      case 'apply-spec': {
        const change = nextV4Change(diff);
        if (change.kind === 'vm') return this.#client.updateVm(vm.extId, v4UpdateBody(vm, desired, this.#extIdOf), etag);
        return this.#client.changeDevice(vm.extId, deviceWrite(vm, change), etag);
      }
    }
  }

  async deleteVm(current: ObservedVm): Promise<string | undefined> {
    const { vm, etag } = await this.#withEtag(current);
    return this.#client.deleteVm(vm.extId, etag);
  }

  async getTask(uuid: string): Promise<VmTask | undefined> {
    const task = await this.#client.getTask(uuid);
    return task === undefined ? undefined : vmTaskFromV4(task);
  }

  isEditConflict(failure: unknown): boolean {
    if (isStaleEtag(failure)) return true;
    if (!isVmTask(failure) || failure.status !== 'FAILED') return false;
    return failure.errorCode === ETAG_MISMATCH_GROUP || isEditConflict(failure);
  }

  /** v4 answers a repeated id with the first task, whatever became of it: no id is ever spent. */
  isSpentCreateToken(): boolean {
    return false;
  }

  readonly #extIdOf = (key: string, value: string): string => {
    const found = this.#categoryExtIds.get(`${key}=${value}`);
    if (found === undefined) throw new Error(`category ${key}=${value} was not prepared`);
    return found.extId;
  };

  #translate(vm: PrismV4Vm, etag: string | undefined): ObservedVm {
    const translated = observedVmFromV4(vm, this.#categoryNames);
    this.#read.set(translated, { vm, ...(etag === undefined ? {} : { etag }) });
    return translated;
  }

  /** The v4 VM behind `current` and its ETag (a listed VM has none: it is read once more). */
  async #withEtag(current: ObservedVm): Promise<{ vm: PrismV4Vm; etag: string }> {
    const read = this.#read.get(current);
    if (read?.etag !== undefined) return { vm: read.vm, etag: read.etag };
    const fresh = await this.#client.getVm(current.uuid);
    if (fresh === undefined) {
      throw new PrismApiError({ method: 'GET', path: `/vms/${current.uuid}` }, 404, [{ reason: 'VM_NOT_FOUND', message: `VM ${current.uuid} is gone` }]);
    }
    return fresh;
  }
}

/** The disk or NIC request for a device change. */
function deviceWrite(vm: PrismV4Vm, change: Exclude<V4Change, { kind: 'vm' }>): PrismV4DeviceWrite {
  switch (change.kind) {
    case 'add-disk':
      return { device: 'disk', body: v4DiskBody(change.disk) };
    case 'grow-disk':
      return { device: 'disk', deviceExtId: change.extId, body: v4GrownDiskBody(vm, change.extId, change.sizeMib) };
    case 'add-nic':
      return { device: 'nic', body: v4NicBody(change.nic) };
    case 'move-nic':
      return { device: 'nic', deviceExtId: change.extId, body: { ...v4NicBody(change.nic), extId: change.extId } };
    case 'remove-nic':
      return { device: 'nic', deviceExtId: change.extId };
  }
}
