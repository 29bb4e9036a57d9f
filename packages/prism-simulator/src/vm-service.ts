// The v3 VM operations: what POST, GET, PUT, DELETE /vms and POST /vms/list accept, answer and set in
// motion. Choices where the contract is unverified are explained where they are made and in the README.

import { randomUUID } from 'node:crypto';
import { unknownCategories, vmCategoryAssignment, type CategoryStore } from './categories.ts';
import { API_VERSION, EDIT_CONFLICT_MESSAGE, EDIT_CONFLICT_REASON, PrismApiError, addDetail, invalidRequest, vmNotFound } from './errors.ts';
import { gpuShortage } from './gpu-allocation.ts';
import { NOT_SUPPORTED_ERROR_CODE, hotplugViolations } from './hotplug-rules.ts';
import type { HttpReply } from './http-io.ts';
import type { IdempotenceRegistry } from './idempotence.ts';
import type { Inventory } from './inventory.ts';
import { listFilter, listReply, parseListInput } from './list-call.ts';
import { pageOf, sortByName } from './paging.ts';
import { isPlainObject, validate } from './schema-validation.ts';
import type { TaskFailure, TaskRunner } from './tasks.ts';
import { vmIntentSchema, type VmIntentInput } from './vm-schema.ts';
import { buildVmSpec } from './vm-spec-builder.ts';
import type { Reference, VmClientMetadata, VmPhase, VmRecord, VmState, VmStore } from './vm-store.ts';
import { renderVm } from './vm-view.ts';

/**
 * How a PUT with a stale `metadata.spec_version` (or one sent while another change is in flight) fails:
 * `sync-409` answers 409 at once (PC before 2022.1); `async-task` answers 202 and the task fails with an
 * edit-conflict error (the behaviour the pc.2022.1 notes announce, and what a recorded pc.2024.3 PUT with
 * a mismatched version is consistent with).
 */
export type EditConflictMode = 'sync-409' | 'async-task';

export interface SimulatorTimings {
  /** How long a create task runs. */
  createMs: number;
  updateMs: number;
  deleteMs: number;
  /** How long after power-on a VM on a non-IPAM subnet shows its DHCP (`LEARNED`) address. */
  learnedIpMs: number;
}

export interface VmServiceOptions {
  inventory: Inventory;
  /** Categories a VM is given must exist here. */
  categories: CategoryStore;
  store: VmStore;
  tasks: TaskRunner;
  idempotence: IdempotenceRegistry;
  timings: SimulatorTimings;
  editConflicts: EditConflictMode;
  now: () => number;
  /** The user VMs are owned by (`metadata.owner_reference`). */
  owner: Reference;
}

/**
 * What tests see of one VM through inspect(). Name, CPU, memory and cluster are what the VM has (its last
 * applied spec), or what it was asked to have while it is still being created.
 */
export interface InspectedVm {
  uuid: string;
  name: string;
  phase: VmPhase;
  state: VmState;
  /** Applied power state; undefined until the create task succeeded. */
  powerState: 'ON' | 'OFF' | undefined;
  specVersion: number;
  numSockets: number;
  numVcpusPerSocket: number;
  memorySizeMib: number;
  clusterUuid: string;
  /** The VM's description (where an operator may keep an ownership marker), if it has one. */
  description?: string;
  /** The keys with one value, as `metadata.categories` shows them. */
  categories: Record<string, string>;
  /** Every assigned value by key, as `metadata.categories_mapping` shows them. */
  categoriesMapping: Record<string, string[]>;
  lastTaskUuid: string;
}

export class VmService {
  private readonly options: VmServiceOptions;
  /** Every VM lands in the `_internal` project unless the client names one (recorded GET). */
  private readonly internalProject: Reference = { kind: 'project', name: '_internal', uuid: randomUUID() };

  constructor(options: VmServiceOptions) {
    this.options = options;
  }

  create(body: unknown): HttpReply {
    const input = parseIntent(body, 'create');
    const { uuid, taskUuid } = this.submitCreate(input);
    const { spec_version: _ignored, uuid: _uuid, ...echoedMetadata } = input.metadata;
    return accepted({ use_categories_mapping: false, ...echoedMetadata, kind: 'vm', spec_version: 0, uuid }, input.spec, taskUuid);
  }

  /**
   * Accepts the create of a schema-checked intent and starts its task: the part of a create that the v3 and the v4
   * API share, so that a VM created through either is the same VM to both.
   */
  submitCreate(input: VmIntentInput): { uuid: string; taskUuid: string } {
    const { store, idempotence, inventory, tasks, timings } = this.options;
    const metadata = this.clientMetadata(input.metadata, undefined);
    const requestedUuid = input.metadata.uuid?.toLowerCase();
    // Re-POST with a used idempotence uuid: 409, so the retrying client learns that its first POST did
    // arrive and can GET the VM by that uuid (the real behaviour is unverified; see the README).
    if (requestedUuid !== undefined && store.isUuidTaken(requestedUuid)) {
      throw new PrismApiError(409, 'ENTITY_ALREADY_EXISTS', `A VM with uuid ${requestedUuid} already exists; an idempotence identifier creates at most one VM.`);
    }
    const uuid = requestedUuid ?? randomUUID();
    const problems: TaskFailure[] = [];
    // pc.2022.1+: an invalid idempotence uuid is accepted with 202 and fails the task.
    if (requestedUuid !== undefined && !idempotence.isValid(requestedUuid)) {
      problems.push({ errorCode: 'INVALID_UUID', errorDetail: `INVALID_UUID: ${requestedUuid} was not issued by POST /idempotence_identifiers or has expired` });
    }
    const built = buildVmSpec(input.spec, { inventory, previous: undefined, previousLearnedIps: new Map(), ipsInUse: store.ipsInUse(), macsInUse: store.macsInUse(), newUuid: randomUUID });
    problems.push(...built.problems, ...this.projectProblems(input.metadata), ...this.gpuProblems(built.spec));
    const now = this.options.now();
    const vm: VmRecord = {
      uuid,
      phase: 'creating',
      state: 'PENDING',
      messageList: [],
      spec: built.spec,
      applied: undefined,
      metadata,
      pendingMetadata: undefined,
      specVersion: 0,
      entityVersion: 0,
      creationTime: now,
      lastUpdateTime: now,
      lastTaskUuid: '',
      tasksInFlight: 1,
      deleteTaskUuid: undefined,
      learnedIps: built.learnedIps,
      poweredOnAt: undefined,
      generationUuid: randomUUID(),
      customAttributes: [],
    };
    store.insert(vm);
    vm.lastTaskUuid = tasks.submit({
      operation: 'create',
      entity: { kind: 'vm', uuid, name: vm.spec.name },
      cluster: vm.spec.cluster_reference,
      durationMs: timings.createMs,
      queueKey: uuid,
      onStart: () => { if (vm.state === 'PENDING') vm.state = 'RUNNING'; },
      complete: (injected) => this.completeCreate(vm, problems[0] ?? injected),
    });
    return { uuid, taskUuid: vm.lastTaskUuid };
  }

  get(uuid: string): HttpReply {
    const vm = this.options.store.get(uuid.toLowerCase());
    if (!vm) throw vmNotFound(uuid);
    return { status: 200, json: { ...renderVm(vm, this.options.timings.learnedIpMs), api_version: API_VERSION } };
  }

  update(uuid: string, body: unknown): HttpReply {
    const vm = this.options.store.get(uuid.toLowerCase());
    if (!vm) throw vmNotFound(uuid);
    const input = parseIntent(body, 'update');
    const metadataEcho = { use_categories_mapping: false, kind: 'vm', spec_version: vm.specVersion, uuid: vm.uuid };
    return accepted(metadataEcho, input.spec, this.submitUpdate(vm.uuid, input));
  }

  /**
   * Accepts a change of a schema-checked intent and returns its task's uuid (the part of an update the v3 and the v4
   * API share). `restart` marks a power cycle: the guest boots again, so DHCP addresses show up only after a while.
   * `conflict` is how the task of a conflicting change fails (v4 names it its own way); with it, the change is always
   * accepted and its task fails, whatever `editConflicts` says for v3. `onApplied` changes what the intent cannot
   * carry (v4's custom attributes), when the task succeeds and only then.
   */
  submitUpdate(uuid: string, input: VmIntentInput, options: { restart?: boolean; conflict?: TaskFailure; onApplied?: (vm: VmRecord) => void } = {}): string {
    const { store, inventory, tasks, timings, editConflicts } = this.options;
    const vm = store.get(uuid.toLowerCase());
    if (!vm) throw vmNotFound(uuid);
    const metadata = this.clientMetadata(input.metadata, vm.metadata);
    const entity = { kind: 'vm', uuid: vm.uuid, name: vm.spec.name };
    // One change at a time, based on the version the client read. A change based on an
    // older version, or sent while another change or the create/delete is still running, is a conflict.
    const applied = vm.applied;
    if (input.metadata.spec_version !== vm.specVersion || vm.tasksInFlight > 0 || vm.phase !== 'ready' || !applied) {
      if (editConflicts === 'sync-409' && options.conflict === undefined) throw new PrismApiError(409, EDIT_CONFLICT_REASON, EDIT_CONFLICT_MESSAGE);
      const taskUuid = tasks.submit({
        operation: 'update',
        entity,
        cluster: vm.spec.cluster_reference,
        durationMs: timings.updateMs,
        complete: () => options.conflict ?? { errorCode: EDIT_CONFLICT_REASON, errorDetail: `${EDIT_CONFLICT_REASON}: ${EDIT_CONFLICT_MESSAGE}` },
      });
      return taskUuid;
    }
    const built = buildVmSpec(input.spec, {
      inventory,
      previous: applied,
      previousLearnedIps: vm.learnedIps,
      ipsInUse: store.ipsInUse(vm.uuid),
      macsInUse: store.macsInUse(),
      newUuid: randomUUID,
    });
    const previousLearnedIps = vm.learnedIps;
    vm.spec = built.spec;
    vm.pendingMetadata = metadata;
    vm.learnedIps = new Map([...previousLearnedIps, ...built.learnedIps]);
    vm.state = 'PENDING';
    vm.tasksInFlight += 1;
    vm.lastTaskUuid = tasks.submit({
      operation: 'update',
      entity,
      cluster: vm.spec.cluster_reference,
      durationMs: timings.updateMs,
      queueKey: vm.uuid,
      onStart: () => { if (vm.state === 'PENDING') vm.state = 'RUNNING'; },
      complete: (injected) => {
        vm.tasksInFlight -= 1;
        vm.pendingMetadata = undefined;
        const failure = built.problems[0] ?? this.projectProblems(input.metadata)[0] ?? hotplugFailure(applied, built.spec) ?? injected;
        if (failure) {
          vm.spec = structuredClone(applied);
          vm.learnedIps = previousLearnedIps;
          this.markFailed(vm, failure);
          return failure;
        }
        const wasOn = applied.resources.power_state === 'ON';
        const isOn = built.spec.resources.power_state === 'ON';
        vm.applied = structuredClone(built.spec);
        vm.learnedIps = built.learnedIps;
        vm.metadata = metadata;
        vm.specVersion += 1;
        vm.entityVersion += 1;
        vm.lastUpdateTime = this.options.now();
        vm.messageList = [];
        vm.state = vm.deleteTaskUuid === undefined ? 'COMPLETE' : 'DELETE_PENDING';
        if (isOn && (!wasOn || options.restart === true)) vm.poweredOnAt = performance.now();
        if (!isOn) vm.poweredOnAt = undefined;
        options.onApplied?.(vm);
        return undefined;
      },
    });
    return vm.lastTaskUuid;
  }

  /** DELETE has no version check and always deletes; a repeated DELETE reports the same task. */
  remove(uuid: string): HttpReply {
    const taskUuid = this.submitDelete(uuid);
    return {
      status: 202,
      json: { status: { state: 'DELETE_PENDING', execution_context: { task_uuid: taskUuid } }, spec: '', api_version: API_VERSION, metadata: { kind: 'vm' } },
    };
  }

  /** Starts the VM's delete, or returns the delete already running (the part of a delete v3 and v4 share). */
  submitDelete(uuid: string): string {
    const { store, tasks, timings } = this.options;
    const vm = store.get(uuid.toLowerCase());
    if (!vm) throw vmNotFound(uuid);
    if (vm.deleteTaskUuid === undefined) {
      vm.deleteTaskUuid = tasks.submit({
        operation: 'delete',
        entity: { kind: 'vm', uuid: vm.uuid, name: vm.spec.name },
        cluster: vm.spec.cluster_reference,
        durationMs: timings.deleteMs,
        queueKey: vm.uuid,
        complete: (injected) => this.completeDelete(vm, injected),
      });
      vm.tasksInFlight += 1;
      if (vm.phase === 'ready') vm.phase = 'deleting';
      vm.state = 'DELETE_PENDING';
      vm.lastTaskUuid = vm.deleteTaskUuid;
    }
    return vm.deleteTaskUuid;
  }

  list(body: unknown): HttpReply {
    const input = parseListInput(body, 'vm');
    const predicate = listFilter(input.filter, 'vm_name', 'vm');
    const nameOf = (vm: VmRecord): string => (vm.applied ?? vm.spec).name;
    const matches = this.options.store.listable().filter((vm) => predicate({ name: nameOf(vm) }));
    const page = pageOf(sortByName(matches, nameOf, input.sort_attribute, input.sort_order), input);
    return listReply('vm', input, page, (vm) => renderVm(vm, this.options.timings.learnedIpMs));
  }

  inspect(): InspectedVm[] {
    return this.options.store.all().map((vm) => {
      const shown = vm.applied ?? vm.spec;
      return {
        uuid: vm.uuid,
        name: shown.name,
        phase: vm.phase,
        state: vm.state,
        powerState: vm.applied?.resources.power_state,
        specVersion: vm.specVersion,
        numSockets: shown.resources.num_sockets,
        numVcpusPerSocket: shown.resources.num_vcpus_per_socket,
        memorySizeMib: shown.resources.memory_size_mib,
        ...(shown.description === undefined ? {} : { description: shown.description }),
        clusterUuid: shown.cluster_reference.uuid,
        categories: { ...vm.metadata.categories },
        categoriesMapping: structuredClone(vm.metadata.categoriesMapping),
        lastTaskUuid: vm.lastTaskUuid,
      };
    });
  }

  /** A failed create leaves nothing behind: GET answers 404 (pc.2022.1+). */
  private completeCreate(vm: VmRecord, failure: TaskFailure | undefined): TaskFailure | undefined {
    vm.tasksInFlight -= 1;
    if (failure) {
      this.options.store.remove(vm.uuid);
      return failure;
    }
    vm.applied = structuredClone(vm.spec);
    vm.entityVersion = 1;
    vm.lastUpdateTime = this.options.now();
    vm.phase = vm.deleteTaskUuid === undefined ? 'ready' : 'deleting';
    vm.state = vm.deleteTaskUuid === undefined ? 'COMPLETE' : 'DELETE_PENDING';
    if (vm.applied.resources.power_state === 'ON') vm.poweredOnAt = performance.now();
    this.options.store.markCreated(vm.uuid);
    return undefined;
  }

  private completeDelete(vm: VmRecord, injected: TaskFailure | undefined): TaskFailure | undefined {
    vm.tasksInFlight -= 1;
    vm.deleteTaskUuid = undefined;
    // The create this delete waited for may have failed: then there is nothing left to delete.
    if (this.options.store.get(vm.uuid) !== vm) return undefined;
    if (injected) {
      vm.phase = 'ready';
      this.markFailed(vm, injected);
      return injected;
    }
    this.options.store.remove(vm.uuid);
    return undefined;
  }

  /** The VM shows the failure until a later update succeeds (TF issue #131). */
  private markFailed(vm: VmRecord, failure: TaskFailure): void {
    vm.state = vm.deleteTaskUuid === undefined ? 'ERROR' : 'DELETE_PENDING';
    vm.messageList = [{ reason: 'INTERNAL_ERROR', message: `error_code: ${failure.errorCode}\nerror_detail: "${failure.errorDetail}"` }];
  }

  /** A GPU the VM's cluster does not have, or has none free of, fails the create's task. */
  private gpuProblems(spec: VmRecord['spec']): TaskFailure[] {
    const cluster = this.options.inventory.cluster(spec.cluster_reference.uuid);
    const gpus = spec.resources.gpu_list;
    if (cluster === undefined || !Array.isArray(gpus) || gpus.length === 0) return [];
    const shortage = gpuShortage(gpus, cluster, this.options.store.all());
    return shortage === undefined ? [] : [shortage];
  }

  /**
   * A project the PC does not have fails the VM's task, as pc.2022.1+ reports reference errors asynchronously (the
   * v3 API introduction: "missing project … now return 202"); the exact error text is unverified.
   */
  private projectProblems(input: VmIntentInput['metadata']): TaskFailure[] {
    const uuid = input.project_reference?.uuid;
    if (uuid === undefined || uuid.toLowerCase() === this.internalProject.uuid || this.options.inventory.project(uuid)) return [];
    return [{ errorCode: 'ENTITY_NOT_FOUND', errorDetail: `ENTITY_NOT_FOUND: Project with uuid ${uuid} does not exist` }];
  }

  /** The project a VM is put in, with its name filled in as a GET shows it; `_internal` when the client names none. */
  private projectReference(input: VmIntentInput['metadata'], previous: VmClientMetadata | undefined): Reference {
    const given = input.project_reference;
    if (given === undefined) return structuredClone(previous?.project_reference ?? this.internalProject);
    const known = this.options.inventory.project(given.uuid);
    return { kind: 'project', uuid: given.uuid.toLowerCase(), ...(known === undefined ? {} : { name: known.name }) };
  }

  /**
   * Categories are replaced by what the client sends, and every one of them must exist: an unknown one is a 422
   * naming it (the real answer is unverified; see the README). Project and owner are kept unless it names others.
   */
  private clientMetadata(input: VmIntentInput['metadata'], previous: VmClientMetadata | undefined): VmClientMetadata {
    const { categories, categoriesMapping } = vmCategoryAssignment(input);
    const missing = this.options.categories.missing(categoriesMapping);
    if (missing.length > 0) throw unknownCategories(missing);
    return {
      categories,
      categoriesMapping,
      project_reference: this.projectReference(input, previous),
      owner_reference: structuredClone(input.owner_reference ?? previous?.owner_reference ?? this.options.owner),
    };
  }
}

/**
 * Schema check of a POST or PUT body. A PUT must also carry `metadata.spec_version` (version control is
 * the point of a PUT) and state `is_connected` on every NIC (a real 422: "Must specify NIC is_connected
 * during update.", TF issue #41).
 */
function parseIntent(body: unknown, operation: 'create' | 'update'): VmIntentInput {
  const details = validate(vmIntentSchema, body);
  if (operation === 'update' && isPlainObject(body)) {
    const { metadata, spec } = body;
    if (isPlainObject(metadata) && !('spec_version' in metadata)) addDetail(details, 'metadata', "'spec_version' is a required property");
    const nics = isPlainObject(spec) && isPlainObject(spec.resources) ? spec.resources.nic_list : undefined;
    if (Array.isArray(nics)) {
      nics.forEach((nic: unknown, index) => {
        if (isPlainObject(nic) && !('is_connected' in nic)) addDetail(details, `spec.resources.nic_list.${index}`, 'Must specify NIC is_connected during update.');
      });
    }
  }
  if (Object.keys(details).length > 0) throw invalidRequest(details);
  return body as VmIntentInput;
}

/** A running VM refuses changes AHV cannot hot-plug: the task fails with a NotSupported error. */
function hotplugFailure(applied: NonNullable<VmRecord['applied']>, desired: VmRecord['spec']): TaskFailure | undefined {
  if (applied.resources.power_state !== 'ON') return undefined;
  const [violation] = hotplugViolations(applied.resources, desired.resources);
  return violation ? { errorCode: NOT_SUPPORTED_ERROR_CODE, errorDetail: violation.detail } : undefined;
}

/** The 202 answer to POST and PUT: the request's spec echoed, a PENDING status and a string task_uuid. */
function accepted(metadata: Record<string, unknown>, spec: VmIntentInput['spec'], taskUuid: string): HttpReply {
  return { status: 202, json: { metadata, api_version: API_VERSION, spec, status: { state: 'PENDING', execution_context: { task_uuid: taskUuid } } } };
}
