import { randomUUID } from 'node:crypto';
import type { PrismConfig } from '../../config/prism-config.ts';
import type { InventoryLookupOptions, PrismEntityKind } from '../../vm/prism-vm-api.ts';
import type { PrismClientOptions, WaitForTaskOptions } from '../prism-client-options.ts';
import { PrismApiError, PrismApiMissingError } from '../prism-errors.ts';
import { PrismHttp } from '../prism-http.ts';
import { NO_PRISM_METRICS, type PrismMetricsSink } from '../prism-metrics-sink.ts';
import { pollTask, type TaskSource } from '../poll-task.ts';

/**
 * The Prism Central v4 operations the operator needs — VMM v4.2 VMs, Prism v4.2 tasks and categories, and the
 * clusters (clustermgmt), subnets (networking) and images (vmm content) a VM refers to — on the same `PrismHttp`
 * as the v3 client (sessions, TLS, retries, concurrency, metrics). The contract is Nutanix's v4.2 SDKs
 * (vmm-go-client/v4, prism-go-client/v4, clustermgmt-go-client/v4, networking-go-client/v4):
 *
 * - Every write carries an `NTNX-Request-Id`. A create's id is the caller's, recorded before the call like v3's
 *   idempotence UUID: a create repeated with it (a retry after a lost answer, or a restarted operator) answers the
 *   first create's task and never makes a second VM. Other writes get a fresh id per call, kept across retries.
 * - PUT, DELETE and power actions need the ETag of a GET in `If-Match`; a stale one is a 412 `PrismApiError`
 *   (`isStaleEtag`), after which the caller reads the VM again and plans afresh, as after a v3 edit conflict.
 * - Writes answer a task reference; the task names the VM it made as a `vmm:ahv:config:vm` entity.
 */

export const VMM_CONFIG_PATH = '/api/vmm/v4.2/ahv/config';
export const PRISM_CONFIG_PATH = '/api/prism/v4.2/config';
export const CLUSTERMGMT_CONFIG_PATH = '/api/clustermgmt/v4.2/config';
export const NETWORKING_CONFIG_PATH = '/api/networking/v4.2/config';
export const VMM_CONTENT_PATH = '/api/vmm/v4.2/content';
/** How a task names the VM it acted on (`entitiesAffected[].rel`). */
export const VM_ENTITY_REL = 'vmm:ahv:config:vm';
/** Page size of list calls: v4's maximum `$limit`. */
export const V4_LIST_LIMIT = 100;

export type PrismV4PowerAction = 'power-on' | 'power-off' | 'power-cycle';

/** A `vmm.v4.ahv.config.Vm`; only what the operator reads is typed, the rest is kept for a PUT to send back. */
export interface PrismV4Vm {
  extId: string;
  name: string;
  description?: string;
  numSockets?: number;
  numCoresPerSocket?: number;
  numThreadsPerCore?: number;
  memorySizeBytes?: number;
  powerState?: string;
  cluster?: { extId: string };
  categories?: { extId: string }[];
  [key: string]: unknown;
}

/**
 * A disk or NIC write: a new device (no `deviceExtId`), a changed one (`deviceExtId` and `body`), or one to remove
 * (`deviceExtId` alone).
 */
export interface PrismV4DeviceWrite {
  device: 'disk' | 'nic';
  deviceExtId?: string;
  body?: Record<string, unknown>;
}

/** A create body: a Vm without the fields the server assigns. */
export type PrismV4VmInput = Omit<PrismV4Vm, 'extId'> & { $objectType?: string };

/** A `clustermgmt.v4.config.PhysicalGpuProfile` or `VirtualGpuProfile`: only what finding a free GPU reads. */
export interface PrismV4GpuProfile {
  physicalGpuConfig?: PrismV4GpuConfig;
  virtualGpuConfig?: PrismV4GpuConfig;
}

export interface PrismV4GpuConfig {
  type?: string;
  deviceId?: number;
  deviceName?: string;
  vendorName?: string;
  isInUse?: boolean;
}

export interface PrismV4AppMessage {
  errorGroup?: string;
  code?: string;
  message?: string;
  [key: string]: unknown;
}

export interface PrismV4Task {
  extId: string;
  /** QUEUED, RUNNING, CANCELING, SUCCEEDED, FAILED, CANCELED … */
  status: string;
  operation?: string;
  progressPercentage?: number;
  entitiesAffected?: { extId: string; rel?: string; name?: string }[];
  errorMessages?: PrismV4AppMessage[];
  legacyErrorMessage?: string;
  [key: string]: unknown;
}

/**
 * A `clustermgmt.v4.config.Cluster`, `networking.v4.config.Subnet` or `vmm.v4.content.Image` as a list shows it; only
 * what the name lookup reads.
 */
export interface PrismV4InventoryEntity {
  extId: string;
  name?: string;
  /** A cluster's `clusterFunction` says what it is: `["AOS"]` a Prism Element, `["PRISM_CENTRAL"]` the PC itself. */
  config?: { clusterFunction?: string[]; [key: string]: unknown };
  /** A subnet's type (`VLAN`, `OVERLAY`) and the cluster a VLAN subnet is on. */
  subnetType?: string;
  clusterReference?: string;
  clusterReferenceList?: string[];
  /** A storage container's id as a disk refers to it (CAPX v1.10.3 uses it, not `extId`), and its cluster. */
  containerExtId?: string;
  clusterExtId?: string;
  /** An image's creation time (RFC 3339), by which an image lookup picks the newest. */
  createTime?: string;
  [key: string]: unknown;
}

interface InventoryCollection {
  basePath: string;
  collection: string;
  /** Whether a listed entity of the right name is one the lookup may answer. */
  usable: (entity: PrismV4InventoryEntity, options: InventoryLookupOptions) => boolean;
}

const sameId = (a: string | undefined, b: string): boolean => a?.toLowerCase() === b.toLowerCase();

const INVENTORY: Record<Exclude<PrismEntityKind, 'project'>, InventoryCollection> = {
  // Prism Central lists itself among the clusters; it runs no VMs. CAPX keeps only clusters whose function is AOS.
  cluster: { basePath: CLUSTERMGMT_CONFIG_PATH, collection: '/clusters', usable: (entity) => entity.config?.clusterFunction?.includes('AOS') ?? false },
  // As CAPX: an overlay subnet serves every cluster, a VLAN subnet the cluster it is on.
  subnet: {
    basePath: NETWORKING_CONFIG_PATH,
    collection: '/subnets',
    usable: (entity, { clusterUuid }) =>
      clusterUuid === undefined ||
      entity.subnetType === 'OVERLAY' ||
      sameId(entity.clusterReference, clusterUuid) ||
      (entity.clusterReferenceList ?? []).some((extId) => sameId(extId, clusterUuid)),
  },
  image: { basePath: VMM_CONTENT_PATH, collection: '/images', usable: () => true },
  // As CAPX's GetStorageContainerInCluster: the container of that name on the VM's cluster.
  storage_container: {
    basePath: CLUSTERMGMT_CONFIG_PATH,
    collection: '/storage-containers',
    usable: (entity, { clusterUuid }) => clusterUuid === undefined || sameId(entity.clusterExtId, clusterUuid),
  },
};

const TERMINAL_STATUSES: readonly string[] = ['SUCCEEDED', 'FAILED', 'CANCELED'];

export class PrismV4Client {
  readonly #http: PrismHttp;
  readonly #metrics: PrismMetricsSink;

  constructor(options: PrismClientOptions) {
    this.#http = new PrismHttp(options);
    this.#metrics = options.metrics ?? NO_PRISM_METRICS;
  }

  static fromConfig(config: PrismConfig, options: Omit<PrismClientOptions, 'origin' | 'credentials' | 'tls'> = {}): PrismV4Client {
    return new PrismV4Client({ ...options, origin: config.origin, credentials: config.credentials, tls: config.tls });
  }

  /**
   * Whether this Prism Central serves the VMM v4.2 API: a one-VM list answers 200 on one that does and 404 on one
   * that does not (older PCs, or v4.0/v4.1 only). Errors other than 404 are thrown, not taken for "no".
   */
  async servesV4(): Promise<boolean> {
    const answer = await this.#http.send({
      method: 'GET',
      basePath: VMM_CONFIG_PATH,
      path: '/vms?$limit=1',
      endpoint: `${VMM_CONFIG_PATH}/vms`,
      repeatability: 'repeatable',
      acceptStatuses: [404],
    });
    return answer.status !== 404;
  }

  /** The VM and its ETag, or undefined when Prism has none with that extId (also while its create still runs). */
  async getVm(extId: string): Promise<{ vm: PrismV4Vm; etag: string } | undefined> {
    const answer = await this.#http.send({
      method: 'GET',
      basePath: VMM_CONFIG_PATH,
      path: `/vms/${encodeURIComponent(extId)}`,
      endpoint: `${VMM_CONFIG_PATH}/vms/{extId}`,
      repeatability: 'repeatable',
      acceptStatuses: [404],
    });
    if (answer.status === 404) return undefined;
    const vm = (answer.body as { data?: PrismV4Vm } | undefined)?.data;
    if (vm?.extId === undefined || answer.etag === undefined) throw invalidResponse('GET', `/vms/${extId}`, 'a Vm in data and an ETag header');
    return { vm, etag: answer.etag };
  }

  /**
   * Every VM named exactly `name`, over all pages (`$filter=name eq '…'`). Names are not unique in Prism; each VM's
   * name is checked again here, and VMs are keyed by extId in case one moves between pages.
   */
  async listVmsByName(name: string): Promise<PrismV4Vm[]> {
    return (await this.#listAll<PrismV4Vm>(VMM_CONFIG_PATH, '/vms', `name eq ${odataString(name)}`)).filter((vm) => vm.name === name);
  }

  /**
   * ExtIds of the clusters (`GET /api/clustermgmt/v4.2/config/clusters`), subnets (`GET /api/networking/v4.2/config/
   * subnets`), images (`GET /api/vmm/v4.2/content/images`) or storage containers (`GET /api/clustermgmt/v4.2/config/
   * storage-containers`, their `containerExtId`) named exactly `name`, over all pages (`$filter=name eq '…'`). Names need not be unique and each entity's name is checked again here; the caller decides what several
   * matches mean. Prism Central's own cluster entity (`clusterFunction` without `AOS`) is never a match, so a Prism
   * Element sharing its name is not ambiguous; a subnet is one a VM on `clusterUuid` can use, when that is given.
   */
  async listEntityExtIdsByName(kind: PrismEntityKind, name: string, options: InventoryLookupOptions = {}): Promise<string[]> {
    if (kind === 'project') return this.#projectUuidsByName(name);
    const { basePath, collection, usable } = INVENTORY[kind];
    const entities = await this.#listAll<PrismV4InventoryEntity>(basePath, collection, `name eq ${odataString(name)}`);
    return entities.filter((entity) => entity.name === name && usable(entity, options)).map((entity) => (entity.containerExtId ?? entity.extId).toLowerCase());
  }

  /**
   * UUIDs of the projects named exactly `name`, through v3's `POST /api/nutanix/v3/projects/list`: v4 has no projects
   * API the operator can rely on (multidomain v4 is a beta SDK in prism-go-client's converged client @1e253ea), and
   * CAPX v1.10.3 finds projects through v3 on its v4 path too (controllers/helpers.go `GetProjectUUID`:
   * `ListAllProject(ctx, "")`, then the name compared client-side), as this does. A Prism Central that serves no v3
   * answers 404: `PrismApiMissingError`, so the AhvVm says to give the project's uuid instead.
   */
  async #projectUuidsByName(name: string): Promise<string[]> {
    const uuids = new Set<string>();
    for (let offset = 0; ; ) {
      const answer = await this.#http.send({
        method: 'POST',
        path: '/projects/list',
        endpoint: '/projects/list',
        body: { kind: 'project', filter: '', offset, length: V4_LIST_LIMIT },
        repeatability: 'repeatable',
        acceptStatuses: [404],
      });
      if (answer.status === 404) {
        throw new PrismApiMissingError(
          { method: 'POST', path: '/api/nutanix/v3/projects/list' },
          `this Prism Central serves no v3 API (404), which is where a project is found by name (v4 has none the operator can use); give the project by uuid, or serve v3`,
        );
      }
      const page = answer.body as { entities?: { metadata: { uuid: string }; spec?: { name?: string } }[]; metadata?: { total_matches?: number } } | undefined;
      const entities = page?.entities ?? [];
      for (const project of entities) if (project.spec?.name === name) uuids.add(project.metadata.uuid.toLowerCase());
      offset += entities.length;
      if (entities.length === 0 || offset >= (page?.metadata?.total_matches ?? 0)) return [...uuids];
    }
  }

  /**
   * The physical or virtual GPU profiles of a cluster (`GET /api/clustermgmt/v4.2/config/clusters/{extId}/
   * physical-gpu-profiles`, `…/virtual-gpu-profiles`) matching `filter`, one page of 100: a cluster has few.
   */
  async listGpuProfiles(clusterExtId: string, kind: 'physical' | 'virtual', filter: string): Promise<PrismV4GpuProfile[]> {
    const collection = `/clusters/{clusterExtId}/${kind}-gpu-profiles`;
    const answer = await this.#http.send({
      method: 'GET',
      basePath: CLUSTERMGMT_CONFIG_PATH,
      path: `/clusters/${encodeURIComponent(clusterExtId)}/${kind}-gpu-profiles?$filter=${encodeURIComponent(filter)}&$limit=${V4_LIST_LIMIT}`,
      endpoint: `${CLUSTERMGMT_CONFIG_PATH}${collection}`,
      repeatability: 'repeatable',
    });
    return (answer.body as { data?: PrismV4GpuProfile[] } | undefined)?.data ?? [];
  }

  /** Every image (`GET /api/vmm/v4.2/content/images`), over all pages, for an image lookup. */
  async listImages(): Promise<PrismV4InventoryEntity[]> {
    return this.#listAll<PrismV4InventoryEntity>(VMM_CONTENT_PATH, '/images', undefined);
  }

  /**
   * POST /vms with `requestId` as its `NTNX-Request-Id`; returns the task's extId. Repeating the call with the same id
   * — a retry here, or a restarted operator that recorded the id — answers the first create's task: the id, not the
   * VM's name, is what prevents a second VM. Record it before calling.
   */
  async createVm(vm: PrismV4VmInput, options: { requestId: string }): Promise<string> {
    const answer = await this.#http.send({
      method: 'POST',
      basePath: VMM_CONFIG_PATH,
      path: '/vms',
      endpoint: `${VMM_CONFIG_PATH}/vms`,
      headers: { 'ntnx-request-id': options.requestId },
      body: { $objectType: 'vmm.v4.ahv.config.Vm', ...vm },
      repeatability: 'repeatable',
    });
    return taskExtIdOf(answer.body, 'POST', '/vms');
  }

  /**
   * PUT /vms/{extId}: changes the VM's own configuration (name, CPU, memory, categories…) to `vm`, which should be the
   * VM as read with `etag`, changed. Returns the task. A stale ETag throws a 412 `PrismApiError` (`isStaleEtag`).
   */
  async updateVm(extId: string, vm: PrismV4Vm, etag: string): Promise<string> {
    return this.#write('PUT', `/vms/${encodeURIComponent(extId)}`, `/vms/{extId}`, etag, vm, 'once');
  }

  /** POST /vms/{extId}/$actions/<action> with the VM's ETag; returns the task. */
  async powerAction(extId: string, action: PrismV4PowerAction, etag: string): Promise<string> {
    return this.#write('POST', `/vms/${encodeURIComponent(extId)}/$actions/${action}`, `/vms/{extId}/$actions/${action}`, etag, undefined, 'once');
  }

  /**
   * A write to one of the VM's disks or NICs (`POST …/vms/{extId}/disks`, `PUT …/disks/{diskExtId}`, `POST …/nics`,
   * `PUT` or `DELETE …/nics/{nicExtId}`) with the VM's ETag — the one a GET of the VM answered; a disk or NIC has none
   * of its own. Returns the task; a stale ETag is a 412 (`isStaleEtag`).
   */
  async changeDevice(extId: string, change: PrismV4DeviceWrite, etag: string): Promise<string> {
    const device = change.device === 'disk' ? 'disks' : 'nics';
    const vmPath = `/vms/${encodeURIComponent(extId)}/${device}`;
    if (change.deviceExtId === undefined) return this.#write('POST', vmPath, `/vms/{vmExtId}/${device}`, etag, change.body, 'once');
    const path = `${vmPath}/${encodeURIComponent(change.deviceExtId)}`;
    return this.#write(change.body === undefined ? 'DELETE' : 'PUT', path, `/vms/{vmExtId}/${device}/{extId}`, etag, change.body, 'once');
  }

  /** DELETE /vms/{extId} with the VM's ETag: the delete task, or undefined when the VM is already gone. */
  async deleteVm(extId: string, etag: string): Promise<string | undefined> {
    const path = `/vms/${encodeURIComponent(extId)}`;
    const answer = await this.#http.send({
      method: 'DELETE',
      basePath: VMM_CONFIG_PATH,
      path,
      endpoint: `${VMM_CONFIG_PATH}/vms/{extId}`,
      headers: { 'ntnx-request-id': randomUUID(), 'if-match': etag },
      repeatability: 'repeatable',
      acceptStatuses: [404],
    });
    return answer.status === 404 ? undefined : taskExtIdOf(answer.body, 'DELETE', path);
  }

  /**
   * The extId of the category value `key`=`value` (`GET /api/prism/v4.2/config/categories`, `$filter=key eq … and value
   * eq …`), or undefined when there is none. A v4 VM refers to categories by extId only.
   */
  async findCategoryExtId(key: string, value: string): Promise<string | undefined> {
    const filter = encodeURIComponent(`key eq ${odataString(key)} and value eq ${odataString(value)}`);
    const answer = await this.#http.send({
      method: 'GET',
      basePath: PRISM_CONFIG_PATH,
      path: `/categories?$filter=${filter}&$limit=${V4_LIST_LIMIT}`,
      endpoint: `${PRISM_CONFIG_PATH}/categories`,
      repeatability: 'repeatable',
    });
    const categories = (answer.body as { data?: { extId?: string; key?: string; value?: string }[] } | undefined)?.data ?? [];
    return categories.find((category) => category.key === key && category.value === value)?.extId;
  }

  /** The task, or undefined when Prism does not know it. */
  async getTask(extId: string): Promise<PrismV4Task | undefined> {
    const answer = await this.#http.send({
      method: 'GET',
      basePath: PRISM_CONFIG_PATH,
      path: `/tasks/${encodeURIComponent(extId)}`,
      endpoint: `${PRISM_CONFIG_PATH}/tasks/{extId}`,
      repeatability: 'repeatable',
      acceptStatuses: [404],
    });
    if (answer.status === 404) return undefined;
    const task = (answer.body as { data?: PrismV4Task } | undefined)?.data;
    if (task?.status === undefined) throw invalidResponse('GET', `/tasks/${extId}`, 'a Task in data');
    return task;
  }

  /**
   * Polls the task until it SUCCEEDED, FAILED or was CANCELED, and returns it; a failed task is not an error here —
   * look at `status`, `errorMessages` and `legacyErrorMessage`. Counts the outcome in `prism_tasks_total`.
   */
  async waitForTask(extId: string, options: WaitForTaskOptions): Promise<PrismV4Task> {
    const source: TaskSource<PrismV4Task> = {
      get: (id) => this.getTask(id),
      isFinished: (task) => TERMINAL_STATUSES.includes(task.status),
      unknownTask: (id) => new PrismApiError({ method: 'GET', path: `/tasks/${id}` }, 404, [{ reason: 'TASK_NOT_FOUND', message: `Prism Central does not know task ${id}` }]),
    };
    return pollTask(source, extId, options, this.#metrics);
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /**
   * Every entity of a v4 list matching `filter` (all without one), page by page ($limit 100) until `metadata.totalAvailableResults` are
   * read, keyed by extId in case one moves between pages.
   */
  async #listAll<T extends { extId: string }>(basePath: string, collection: string, filter: string | undefined): Promise<T[]> {
    const found = new Map<string, T>();
    const query = filter === undefined ? '' : `$filter=${encodeURIComponent(filter)}&`;
    for (let page = 0; ; page += 1) {
      const answer = await this.#http.send({
        method: 'GET',
        basePath,
        path: `${collection}?${query}$page=${page}&$limit=${V4_LIST_LIMIT}`,
        endpoint: `${basePath}${collection}`,
        repeatability: 'repeatable',
      });
      const body = answer.body as { data?: T[]; metadata?: { totalAvailableResults?: number } } | undefined;
      const entities = body?.data ?? [];
      for (const entity of entities) found.set(entity.extId.toLowerCase(), entity);
      const total = body?.metadata?.totalAvailableResults ?? 0;
      if (entities.length === 0 || (page + 1) * V4_LIST_LIMIT >= total) return [...found.values()];
    }
  }

  async #write(method: 'PUT' | 'POST' | 'DELETE', path: string, template: string, etag: string, body: unknown, repeatability: 'once' | 'repeatable'): Promise<string> {
    const answer = await this.#http.send({
      method,
      basePath: VMM_CONFIG_PATH,
      path,
      endpoint: `${VMM_CONFIG_PATH}${template}`,
      headers: { 'ntnx-request-id': randomUUID(), 'if-match': etag },
      ...(body === undefined ? {} : { body }),
      repeatability,
    });
    return taskExtIdOf(answer.body, method, path);
  }
}

/** The extId of the VM a (create) task made, from its `entitiesAffected`. */
export function vmExtIdOf(task: PrismV4Task): string | undefined {
  return task.entitiesAffected?.find((entity) => entity.rel === VM_ENTITY_REL)?.extId;
}

/** A 412: the ETag sent in `If-Match` is not the VM's current one (it changed since it was read). */
export function isStaleEtag(error: unknown): boolean {
  return error instanceof PrismApiError && error.status === 412;
}

/** An OData string literal: single quotes, a quote inside doubled. */
export function odataString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function taskExtIdOf(body: unknown, method: string, path: string): string {
  const extId = (body as { data?: { extId?: unknown } } | undefined)?.data?.extId;
  if (typeof extId !== 'string') throw invalidResponse(method, path, 'a TaskReference in data');
  return extId;
}

function invalidResponse(method: string, path: string, expected: string): PrismApiError {
  return new PrismApiError({ method, path }, 200, [{ reason: 'INVALID_RESPONSE', message: `expected ${expected}` }]);
}
