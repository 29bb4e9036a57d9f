// The v4 API: VMM v4.2 VMs (with their disk and NIC sub-resources), Prism v4.2 tasks and categories over the same VMs,
// tasks and categories as the v3 API, and the inventory (clusters, storage containers, subnets, images; v4-inventory.ts).
//
// - Writes return a TaskReference (`prism.v4.config.TaskReference`, 202); the task is the v3 task, its extId the v3
//   uuid behind Ergon's `ZXJnb24=:` prefix, so it can be polled through either API.
// - GET of a VM sends its ETag header; PUT, DELETE, the power actions and every disk or NIC write need it back in
//   `If-Match` (428 without, 412 when the VM changed since). The ETag changes whenever a task changes the VM, through either API.
// - Every write needs an `NTNX-Request-Id`; a write repeated with the same id answers what the first one answered
//   (the same task), and does nothing else.

import { createHash } from 'node:crypto';
import type { CategoryStore } from './categories.ts';
import { PrismApiError } from './errors.ts';
import type { HttpReply } from './http-io.ts';
import type { Inventory } from './inventory.ts';
import type { TaskFailure, TaskRunner, TaskView } from './tasks.ts';
import { V4Categories } from './v4-categories.ts';
import { CLUSTERMGMT_PHYSICAL_GPU_PROFILES, CLUSTERMGMT_VIRTUAL_GPU_PROFILES, PRISM_CATEGORIES_PATH, PRISM_TASKS_PATH, VMM_VMS_PATH, isV4InventoryEndpoint, type V4EndpointMatch, type V4InventoryEndpoint, type V4PowerAction } from './v4-endpoints.ts';
import { v4Envelope, v4Object } from './v4-envelope.ts';
import { V4ApiError, fromV3Error, invalidArgument, v4ErrorReply, vmNotFoundV4 } from './v4-errors.ts';
import { gpuProfilesResponseType, serveGpuProfiles } from './v4-gpu-profiles.ts';
import { serveV4Inventory, v4InventoryResponseType } from './v4-inventory.ts';
import { v4ListReply } from './v4-list.ts';
import { ODataError, parseODataFilter } from './v4-odata.ts';
import { createIntentFromV4, customAttributesOf, deviceIntent, powerIntent, renderV4Vm, unchangedIntent, updateIntentFromV4, type V4DeviceChange } from './v4-vm-model.ts';
import type { VmService } from './vm-service.ts';
import type { Reference, VmRecord, VmStore } from './vm-store.ts';

/** The prefix of v4 task extIds: base64 of `ergon`, the task service. */
export const TASK_EXT_ID_PREFIX = 'ZXJnb24=:';

/** What the SDK's version negotiation (`OPTIONS /api/<namespace>/unversioned/info`) learns: the newest version. */
export const V4_SERVED_VERSION = 'v4.2';

const CONFIG = 'vmm.v4.ahv.config';

/**
 * How the task of a change fails when the VM changed after its If-Match was checked: the change was sent while another
 * one still ran (the ETag moves only when a task finishes). Terraform's provider retries on this `VM_ETAG_MISMATCH`.
 */
export const V4_CONFLICT: TaskFailure = {
  errorCode: 'VM_ETAG_MISMATCH',
  errorDetail: 'VM_ETAG_MISMATCH: the VM changed after the ETag sent in If-Match was read (another change was still running); read it again and retry.',
};
const VM_FILTER_FIELDS = ['name', 'extId', 'powerState', 'cluster/extId'] as const;
const TASK_FILTER_FIELDS = ['extId', 'status', 'operation'] as const;

export interface V4Dependencies {
  vms: VmService;
  store: VmStore;
  tasks: TaskRunner;
  inventory: Inventory;
  categories: CategoryStore;
  learnedIpMs: number;
  user: Required<Reference>;
}

export interface V4Request {
  method: string;
  /** Path and query, for the links of list answers. */
  url: URL;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  readBody: () => Promise<unknown>;
}

/** The ETag of a VM's current version: it changes with every change a task applies. */
export function etagOf(vm: VmRecord): string {
  return createHash('sha256').update(`${vm.uuid}:${vm.specVersion}:${vm.entityVersion}`).digest('base64url').slice(0, 24);
}

export function taskExtId(uuid: string): string {
  return `${TASK_EXT_ID_PREFIX}${uuid}`;
}

const header = (request: V4Request, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Answers to writes by NTNX-Request-Id. Only accepted writes are kept: a refused one may be sent again. */
export class RequestIdRegistry {
  private readonly replies = new Map<string, { operation: string; reply: HttpReply }>();

  find(requestId: string): { operation: string; reply: HttpReply } | undefined {
    return this.replies.get(requestId);
  }

  remember(requestId: string, operation: string, reply: HttpReply): void {
    this.replies.set(requestId, { operation, reply: structuredClone(reply) });
  }
}

export class V4Api {
  private readonly deps: V4Dependencies;
  private readonly requestIds = new RequestIdRegistry();
  private readonly categories: V4Categories;

  constructor(deps: V4Dependencies) {
    this.deps = deps;
    this.categories = new V4Categories(deps.categories, deps.user.uuid);
  }

  /** Serves a v4 request; `match` is undefined for a path the simulator does not serve. */
  async serve(match: V4EndpointMatch | undefined, request: V4Request, namespace: string): Promise<HttpReply> {
    if (!match) {
      return v4ErrorReply(namespace, new V4ApiError(404, 'NOT_FOUND', 'PLAT-10404', `${request.method} ${request.url.pathname} is not an endpoint of the Prism Central v4 API simulator.`));
    }
    const responseType = isV4InventoryEndpoint(match.endpoint) ? v4InventoryResponseType(match.endpoint) : responseTypeOf(match.endpoint);
    const write = request.method !== 'GET' && request.method !== 'OPTIONS';
    try {
      const body = write ? await request.readBody().catch((error: unknown) => {
        throw error instanceof PrismApiError ? invalidArgument(`The request body is not JSON: ${JSON.stringify(error.details ?? error.message)}`) : error;
      }) : undefined;
      if (!write) return this.read(match, request);
      const requestId = header(request, 'ntnx-request-id');
      if (requestId === undefined || requestId.trim() === '') throw new V4ApiError(400, 'MISSING_REQUEST_ID', 'PLAT-10001', 'Failed to perform the operation as the request ID is missing.');
      const operation = `${request.method} ${request.url.pathname}`;
      const earlier = this.requestIds.find(requestId);
      if (earlier) {
        if (earlier.operation !== operation) throw new V4ApiError(409, 'DUPLICATE_REQUEST_ID', 'PLAT-10002', `Request ID ${requestId} was already used for ${earlier.operation}; use a new request ID for ${operation}.`);
        return structuredClone(earlier.reply);
      }
      const reply = this.write(match, request, body);
      this.requestIds.remember(requestId, operation, reply);
      return reply;
    } catch (error) {
      if (error instanceof V4ApiError) return v4ErrorReply(namespace, error, responseType);
      if (error instanceof PrismApiError) return v4ErrorReply(namespace, fromV3Error(error), responseType);
      if (error instanceof ODataError) return v4ErrorReply(namespace, invalidArgument(error.message), responseType);
      throw error;
    }
  }

  private read(match: V4EndpointMatch, request: V4Request): HttpReply {
    if (isV4InventoryEndpoint(match.endpoint)) return serveV4Inventory(match.endpoint, match.param, request.url, this.deps.inventory);
    switch (match.endpoint) {
      case 'OPTIONS /api/{namespace}/unversioned/info':
        return { status: 200, json: { data: V4_SERVED_VERSION } };
      case `GET ${VMM_VMS_PATH}`:
        return this.list(request.url);
      case `GET ${VMM_VMS_PATH}/{extId}`: {
        const vm = this.visibleVm(match.param);
        return {
          status: 200,
          headers: { etag: etagOf(vm) },
          json: this.envelope('GetVmApiResponse', `${CONFIG}.Vm`, renderV4Vm(vm, { inventory: this.deps.inventory, learnedIpDelayMs: this.deps.learnedIpMs }), request.url),
        };
      }
      case `GET ${PRISM_TASKS_PATH}`:
        return this.taskList(request.url);
      case `GET ${PRISM_TASKS_PATH}/{extId}`:
        return this.task(match.param, request.url);
      case `GET ${PRISM_CATEGORIES_PATH}`:
        return this.categories.list(request.url);
      case `GET ${PRISM_CATEGORIES_PATH}/{extId}`:
        return this.categories.get(match.param, request.url);
      case CLUSTERMGMT_PHYSICAL_GPU_PROFILES:
        return serveGpuProfiles('physical', match.param, request.url, this.deps.inventory, this.deps.store.all());
      case CLUSTERMGMT_VIRTUAL_GPU_PROFILES:
        return serveGpuProfiles('virtual', match.param, request.url, this.deps.inventory, this.deps.store.all());
      default:
        throw new Error(`${match.endpoint} is not a read`);
    }
  }

  private write(match: V4EndpointMatch, request: V4Request, body: unknown): HttpReply {
    const { vms, categories } = this.deps;
    switch (match.endpoint) {
      case `POST ${VMM_VMS_PATH}`:
        return this.taskReference('CreateVmApiResponse', vms.submitCreate(createIntentFromV4(body, categories)).taskUuid, request.url);
      case `PUT ${VMM_VMS_PATH}/{extId}`: {
        const { vm, applied } = this.matchingVm(match.param, request);
        return this.taskReference('UpdateVmApiResponse', vms.submitUpdate(vm.uuid, updateIntentFromV4(body, vm, applied, categories), { conflict: V4_CONFLICT }), request.url);
      }
      case `DELETE ${VMM_VMS_PATH}/{extId}`: {
        const { vm } = this.matchingVm(match.param, request);
        return this.taskReference('DeleteVmApiResponse', vms.submitDelete(vm.uuid), request.url);
      }
      case `POST ${VMM_VMS_PATH}/{extId}/$actions/power-on`:
        return this.power('power-on', match.param, request);
      case `POST ${VMM_VMS_PATH}/{extId}/$actions/power-off`:
        return this.power('power-off', match.param, request);
      case `POST ${VMM_VMS_PATH}/{extId}/$actions/power-cycle`:
        return this.power('power-cycle', match.param, request);
      case `POST ${VMM_VMS_PATH}/{extId}/$actions/reset`:
        return this.power('reset', match.param, request);
      case `POST ${VMM_VMS_PATH}/{extId}/$actions/add-custom-attributes`:
        return this.customAttributes('add', match.param, request, body);
      case `POST ${VMM_VMS_PATH}/{extId}/$actions/remove-custom-attributes`:
        return this.customAttributes('remove', match.param, request, body);
      case `POST ${VMM_VMS_PATH}/{vmExtId}/disks`:
        return this.device(match, request, { kind: 'add-disk', body });
      case `PUT ${VMM_VMS_PATH}/{vmExtId}/disks/{extId}`:
        return this.device(match, request, { kind: 'update-disk', extId: match.childParam, body });
      case `DELETE ${VMM_VMS_PATH}/{vmExtId}/disks/{extId}`:
        return this.device(match, request, { kind: 'remove-disk', extId: match.childParam });
      case `POST ${VMM_VMS_PATH}/{vmExtId}/nics`:
        return this.device(match, request, { kind: 'add-nic', body });
      case `PUT ${VMM_VMS_PATH}/{vmExtId}/nics/{extId}`:
        return this.device(match, request, { kind: 'update-nic', extId: match.childParam, body });
      case `DELETE ${VMM_VMS_PATH}/{vmExtId}/nics/{extId}`:
        return this.device(match, request, { kind: 'remove-nic', extId: match.childParam });
      case `POST ${PRISM_CATEGORIES_PATH}`:
        return this.categories.create(body, request.url);
      case `DELETE ${PRISM_CATEGORIES_PATH}/{extId}`:
        return this.categories.delete(match.param, header(request, 'if-match'));
      default:
        throw new Error(`${match.endpoint} is not a write`);
    }
  }

  /** A disk or NIC write: an update of the VM it belongs to, checked against the VM's ETag like any other change. */
  private device(match: V4EndpointMatch, request: V4Request, change: V4DeviceChange): HttpReply {
    const { vm, applied } = this.matchingVm(match.param, request);
    const taskUuid = this.deps.vms.submitUpdate(vm.uuid, deviceIntent(vm, applied, change), { conflict: V4_CONFLICT });
    return this.taskReference(DEVICE_RESPONSE_TYPES[change.kind], taskUuid, request.url);
  }

  /** power-cycle and reset restart a running VM and start a stopped one. */
  private power(action: V4PowerAction, extId: string, request: V4Request): HttpReply {
    const { vm, applied } = this.matchingVm(extId, request);
    const on = action !== 'power-off';
    const restart = action === 'power-cycle' || action === 'reset';
    const taskUuid = this.deps.vms.submitUpdate(vm.uuid, powerIntent(vm, applied, on ? 'ON' : 'OFF'), { restart, conflict: V4_CONFLICT });
    return this.taskReference(POWER_RESPONSE_TYPES[action], taskUuid, request.url);
  }

  /**
   * Adds or removes custom attributes (CAPX adds `providerid:<extId>` after the create): a task like any update, checked
   * against the VM's ETag; the attributes change when it succeeds. Adding one the VM has, or removing one it lacks,
   * changes nothing.
   */
  private customAttributes(change: 'add' | 'remove', extId: string, request: V4Request, body: unknown): HttpReply {
    const attributes = customAttributesOf(body);
    const { vm, applied } = this.matchingVm(extId, request);
    const onApplied = (changed: VmRecord): void => {
      changed.customAttributes = change === 'add'
        ? [...new Set([...changed.customAttributes, ...attributes])]
        : changed.customAttributes.filter((attribute) => !attributes.includes(attribute));
    };
    const taskUuid = this.deps.vms.submitUpdate(vm.uuid, unchangedIntent(vm, applied), { conflict: V4_CONFLICT, onApplied });
    return this.taskReference(change === 'add' ? 'AddVmCustomAttributesApiResponse' : 'RemoveVmCustomAttributesApiResponse', taskUuid, request.url);
  }

  /** A VM exists for v4 once its create task succeeded (until then its extId is only in the task). */
  private visibleVm(extId: string): VmRecord {
    const vm = this.deps.store.get(extId.toLowerCase());
    if (!vm || vm.phase === 'creating') throw vmNotFoundV4(extId);
    return vm;
  }

  /** The VM a change addresses, checked against the ETag the client read. */
  private matchingVm(extId: string, request: V4Request): { vm: VmRecord; applied: NonNullable<VmRecord['applied']> } {
    const vm = this.visibleVm(extId);
    const applied = vm.applied;
    if (!applied) throw vmNotFoundV4(extId);
    const ifMatch = header(request, 'if-match');
    if (ifMatch === undefined || ifMatch.trim() === '') {
      throw new V4ApiError(428, 'MISSING_ETAG_HEADER', 'PLAT-10004', 'The If-Match header is missing: send the ETag of a GET of the VM.');
    }
    if (ifMatch.trim() !== etagOf(vm)) throw new V4ApiError(412, 'INVALID_ETAG_HEADER', 'PLAT-10005', 'Invalid eTag header: the VM has changed since it was read; GET it again for its current ETag.');
    return { vm, applied };
  }

  private list(url: URL): HttpReply {
    const predicate = parseODataFilter(url.searchParams.get('$filter') ?? undefined, VM_FILTER_FIELDS);
    const matches = this.deps.store.listable().filter((vm) => {
      const shown = vm.applied ?? vm.spec;
      return predicate({ name: shown.name, extId: vm.uuid, powerState: vm.applied?.resources.power_state ?? 'OFF', 'cluster/extId': shown.cluster_reference.uuid });
    });
    const render = { inventory: this.deps.inventory, learnedIpDelayMs: this.deps.learnedIpMs };
    return v4ListReply(url, matches, {
      responseType: `${CONFIG}.ListVmsApiResponse`,
      itemType: `${CONFIG}.Vm`,
      orderBy: { name: (vm) => (vm.applied ?? vm.spec).name },
      render: (vm) => renderV4Vm(vm, render),
    });
  }

  private task(extId: string, url: URL): HttpReply {
    const uuid = (extId.startsWith(TASK_EXT_ID_PREFIX) ? extId.slice(TASK_EXT_ID_PREFIX.length) : extId).toLowerCase();
    const view = this.deps.tasks.view(uuid);
    if (!view) throw new V4ApiError(404, 'TASK_NOT_FOUND', 'PRISM-40404', `Task with extId '${extId}' does not exist.`);
    return { status: 200, json: this.envelope('GetTaskApiResponse', 'prism.v4.config.Task', renderTask(view, this.deps.user), url, 'prism.v4.config') };
  }

  /**
   * GET …/tasks: `$filter` on extId, status, operation and `entitiesAffected/any(a:a/extId eq '…')` (what CAPX asks
   * before it deletes a VM or uses an image), newest first unless `$orderby` says otherwise.
   */
  private taskList(url: URL): HttpReply {
    const predicate = parseODataFilter(url.searchParams.get('$filter') ?? undefined, TASK_FILTER_FIELDS, { entitiesAffected: ['extId', 'rel'] });
    const matches = this.deps.tasks.views().reverse().filter((view) => predicate({
      extId: taskExtId(view.uuid),
      status: view.status,
      operation: view.operation_type,
      entitiesAffected: view.entity_reference_list.map((entity) => ({ extId: entity.uuid, rel: entityRel(entity.kind) })),
    }));
    return v4ListReply(url, matches, {
      responseType: 'prism.v4.config.ListTasksApiResponse',
      itemType: 'prism.v4.config.Task',
      orderBy: { createdTime: (view) => view.creation_time },
      render: (view) => renderTask(view, this.deps.user),
    });
  }

  private taskReference(responseType: string, taskUuid: string, url: URL): HttpReply {
    const reference = v4Object('prism.v4.config.TaskReference', { extId: taskExtId(taskUuid) });
    return { status: 202, json: this.envelope(responseType, 'prism.v4.config.TaskReference', reference, url) };
  }

  private envelope(responseType: string, dataType: string, data: unknown, url: URL, responseNamespace = CONFIG): Record<string, unknown> {
    return v4Envelope(`${responseNamespace}.${responseType}`, dataType, data, url);
  }
}

const DEVICE_RESPONSE_TYPES: Record<V4DeviceChange['kind'], string> = {
  'add-disk': 'CreateDiskApiResponse',
  'update-disk': 'UpdateDiskApiResponse',
  'remove-disk': 'DeleteDiskApiResponse',
  'add-nic': 'CreateNicApiResponse',
  'update-nic': 'UpdateNicApiResponse',
  'remove-nic': 'DeleteNicApiResponse',
};

const POWER_RESPONSE_TYPES: Record<V4PowerAction, string> = {
  'power-on': 'PowerOnVmApiResponse',
  'power-off': 'PowerOffVmApiResponse',
  'power-cycle': 'PowerCycleVmApiResponse',
  reset: 'ResetVmApiResponse',
};

/** The `$objectType` of an endpoint's answer, which its errors carry too. */
function responseTypeOf(endpoint: Exclude<V4EndpointMatch['endpoint'], V4InventoryEndpoint>): string | undefined {
  switch (endpoint) {
    case `POST ${VMM_VMS_PATH}`:
      return `${CONFIG}.CreateVmApiResponse`;
    case `GET ${VMM_VMS_PATH}`:
      return `${CONFIG}.ListVmsApiResponse`;
    case `GET ${VMM_VMS_PATH}/{extId}`:
      return `${CONFIG}.GetVmApiResponse`;
    case `PUT ${VMM_VMS_PATH}/{extId}`:
      return `${CONFIG}.UpdateVmApiResponse`;
    case `DELETE ${VMM_VMS_PATH}/{extId}`:
      return `${CONFIG}.DeleteVmApiResponse`;
    case `POST ${VMM_VMS_PATH}/{extId}/$actions/power-on`:
      return `${CONFIG}.${POWER_RESPONSE_TYPES['power-on']}`;
    case `POST ${VMM_VMS_PATH}/{extId}/$actions/power-off`:
      return `${CONFIG}.${POWER_RESPONSE_TYPES['power-off']}`;
    case `POST ${VMM_VMS_PATH}/{extId}/$actions/power-cycle`:
      return `${CONFIG}.${POWER_RESPONSE_TYPES['power-cycle']}`;
    case `POST ${VMM_VMS_PATH}/{extId}/$actions/reset`:
      return `${CONFIG}.${POWER_RESPONSE_TYPES.reset}`;
    case `POST ${VMM_VMS_PATH}/{extId}/$actions/add-custom-attributes`:
      return `${CONFIG}.AddVmCustomAttributesApiResponse`;
    case `POST ${VMM_VMS_PATH}/{extId}/$actions/remove-custom-attributes`:
      return `${CONFIG}.RemoveVmCustomAttributesApiResponse`;
    case `POST ${VMM_VMS_PATH}/{vmExtId}/disks`:
      return `${CONFIG}.${DEVICE_RESPONSE_TYPES['add-disk']}`;
    case `PUT ${VMM_VMS_PATH}/{vmExtId}/disks/{extId}`:
      return `${CONFIG}.${DEVICE_RESPONSE_TYPES['update-disk']}`;
    case `DELETE ${VMM_VMS_PATH}/{vmExtId}/disks/{extId}`:
      return `${CONFIG}.${DEVICE_RESPONSE_TYPES['remove-disk']}`;
    case `POST ${VMM_VMS_PATH}/{vmExtId}/nics`:
      return `${CONFIG}.${DEVICE_RESPONSE_TYPES['add-nic']}`;
    case `PUT ${VMM_VMS_PATH}/{vmExtId}/nics/{extId}`:
      return `${CONFIG}.${DEVICE_RESPONSE_TYPES['update-nic']}`;
    case `DELETE ${VMM_VMS_PATH}/{vmExtId}/nics/{extId}`:
      return `${CONFIG}.${DEVICE_RESPONSE_TYPES['remove-nic']}`;
    case `GET ${PRISM_TASKS_PATH}`:
      return 'prism.v4.config.ListTasksApiResponse';
    case `GET ${PRISM_TASKS_PATH}/{extId}`:
      return 'prism.v4.config.GetTaskApiResponse';
    case `GET ${PRISM_CATEGORIES_PATH}`:
      return 'prism.v4.config.ListCategoriesApiResponse';
    case `GET ${PRISM_CATEGORIES_PATH}/{extId}`:
      return 'prism.v4.config.GetCategoryApiResponse';
    case `POST ${PRISM_CATEGORIES_PATH}`:
      return 'prism.v4.config.CreateCategoryApiResponse';
    case `DELETE ${PRISM_CATEGORIES_PATH}/{extId}`:
      return 'prism.v4.config.DeleteCategoryApiResponse';
    case CLUSTERMGMT_PHYSICAL_GPU_PROFILES:
      return gpuProfilesResponseType('physical');
    case CLUSTERMGMT_VIRTUAL_GPU_PROFILES:
      return gpuProfilesResponseType('virtual');
    case 'OPTIONS /api/{namespace}/unversioned/info':
      return undefined;
  }
}

/** A v3 task as `prism.v4.config.Task`. */
/** The `rel` of an entity a task affects: v4's name for the v3 kind. */
function entityRel(kind: string): string {
  return kind === 'vm' ? 'vmm:ahv:config:vm' : kind;
}

function renderTask(view: TaskView, user: Required<Reference>): Record<string, unknown> {
  const failed = view.status === 'FAILED';
  return v4Object('prism.v4.config.Task', {
    extId: taskExtId(view.uuid),
    operation: view.operation_type,
    operationDescription: view.progress_message,
    status: view.status,
    progressPercentage: view.percentage_complete,
    createdTime: view.creation_time,
    ...(view.start_time === undefined ? {} : { startedTime: view.start_time }),
    ...(view.completion_time === undefined ? {} : { completedTime: view.completion_time }),
    lastUpdatedTime: view.last_update_time,
    entitiesAffected: view.entity_reference_list.map((entity) => v4Object('prism.v4.config.EntityReference', { extId: entity.uuid, rel: entityRel(entity.kind) })),
    numberOfEntitiesAffected: view.entity_reference_list.length,
    ...(view.cluster_reference ? { clusterExtIds: [view.cluster_reference.uuid] } : {}),
    ownedBy: v4Object('prism.v4.config.OwnerReference', { extId: user.uuid, name: user.name }),
    isCancelable: false,
    isBackgroundTask: false,
    numberOfSubtasks: 0,
    ...(failed
      ? {
          errorMessages: [
            v4Object('prism.v4.error.AppMessage', {
              message: view.error_detail ?? 'The task failed.',
              severity: 'ERROR',
              code: 'PRISM-50000',
              locale: 'en_US',
              errorGroup: view.error_code ?? 'INTERNAL_ERROR',
            }),
          ],
          legacyErrorMessage: view.error_detail ?? '',
        }
      : {}),
  });
}

