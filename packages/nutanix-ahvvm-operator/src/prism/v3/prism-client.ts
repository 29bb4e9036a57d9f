import type { PrismConfig } from '../../config/prism-config.ts';
import type { InventoryLookupOptions, PrismEntityKind } from '../../vm/prism-vm-api.ts';
import { isTaskFinished } from '../../vm/vm-task.ts';
import { PrismApiError } from '../prism-errors.ts';
import type { PrismClientOptions, WaitForTaskOptions } from '../prism-client-options.ts';
import { PrismHttp } from '../prism-http.ts';
import { NO_PRISM_METRICS, type PrismMetricsSink } from '../prism-metrics-sink.ts';
import { pollTask, type TaskSource } from '../poll-task.ts';
import type { PrismGroupsResponse, PrismHost, PrismInventoryEntity, PrismTask, PrismVm, PrismVmIntent } from './prism-types.ts';

/**
 * The Prism Central v3 operations the operator needs, on top of `PrismHttp` (sessions, TLS, retries, concurrency).
 * Every method either returns what Prism answered or throws one of the typed errors of `prism-errors.ts`.
 */

export interface CreatedVm {
  uuid: string;
  /** The create task, or, when the VM already existed, the last task Prism lists for it. */
  taskUuid: string | undefined;
  /** True when an earlier POST with the same idempotence UUID had already created the VM. */
  alreadyExisted: boolean;
}

/** The page size used to list; prism-go-client uses the same (v3's default page of 20 would need five times the calls). */
export const LIST_PAGE_LENGTH = 100;

export class PrismClient {
  readonly #http: PrismHttp;
  readonly #metrics: PrismMetricsSink;

  constructor(options: PrismClientOptions) {
    this.#http = new PrismHttp(options);
    this.#metrics = options.metrics ?? NO_PRISM_METRICS;
  }

  /** A client for the connection `loadPrismConfig` read from the environment. */
  static fromConfig(config: PrismConfig, options: Omit<PrismClientOptions, 'origin' | 'credentials' | 'tls'> = {}): PrismClient {
    return new PrismClient({ ...options, origin: config.origin, credentials: config.credentials, tls: config.tls });
  }

  /** The VM, or undefined when Prism has none with that UUID (also after a create failed asynchronously). */
  async getVm(uuid: string): Promise<PrismVm | undefined> {
    const answer = await this.#http.send({
      method: 'GET',
      path: `/vms/${encodeURIComponent(uuid)}`,
      endpoint: '/vms/{uuid}',
      repeatability: 'repeatable',
      acceptStatuses: [404],
    });
    return answer.status === 404 ? undefined : (answer.body as PrismVm);
  }

  /**
   * Every VM named exactly `name`, over all pages. Names are not unique in Prism, and whether `vm_name==` matches
   * exactly is unverified, so each entity's name is checked again here.
   */
  async listVmsByName(name: string): Promise<PrismVm[]> {
    return (await this.#listAll<PrismVm>('vm', `vm_name==${encodeFiqlValue(name)}`)).filter((vm) => vm.spec.name === name);
  }

  /**
   * UUIDs of the clusters, images, subnets or storage containers named exactly `name` (POST /clusters/list,
   * /images/list, /subnets/list; storage containers through POST /groups, see `#storageContainerUuidsByName`), over
   * all pages. As with VMs, names need not be unique and each entity's name is checked again here; the caller decides
   * what several matches mean. The cluster list also holds Prism Central's own entity, which runs no VMs: it is never a
   * match (as CAPX keeps only clusters that run AOS), so a Prism Element sharing its name is not ambiguous. A subnet is
   * one a VM on `clusterUuid` can use, when that is given: an overlay subnet, or a VLAN subnet on that cluster.
   */
  async listEntityUuidsByName(kind: PrismEntityKind, name: string, options: InventoryLookupOptions = {}): Promise<string[]> {
    if (kind === 'storage_container') return this.#storageContainerUuidsByName(name, options);
    const entities = await this.#listAll<PrismInventoryEntity>(kind, `name==${encodeFiqlValue(name)}`);
    return entities
      .filter((entity) => {
        const prismCentral = entity.status?.resources?.config?.service_list?.includes('PRISM_CENTRAL') ?? false;
        return (entity.spec?.name ?? entity.status?.name) === name && !prismCentral && (kind !== 'subnet' || onCluster(entity, options));
      })
      .map((entity) => entity.metadata.uuid.toLowerCase());
  }

  /** Every host (POST /hosts/list), which the PC answers all at once (prism-go-client `ListAllHost`: no paging). */
  async listHosts(): Promise<PrismHost[]> {
    const answer = await this.#http.send({ method: 'POST', path: '/hosts/list', endpoint: '/hosts/list', body: { kind: 'host' }, repeatability: 'repeatable' });
    return (answer.body as { entities?: PrismHost[] } | undefined)?.entities ?? [];
  }

  /** Every image (POST /images/list), over all pages, for an image lookup: its name and `metadata.creation_time`. */
  listImages(): Promise<PrismInventoryEntity[]> {
    return this.#listAll<PrismInventoryEntity>('image', undefined);
  }

  /**
   * POST /vms with `idempotenceUuid` (from `createIdempotenceIdentifiers`) as the VM's UUID, which makes the request
   * safe to repeat: when the answer to an earlier attempt was lost, the repeat meets a 409 and this method returns the
   * VM the earlier attempt created. Record the UUID before calling, so a restarted operator finds the VM by it.
   */
  async createVm(intent: PrismVmIntent, options: { idempotenceUuid: string }): Promise<CreatedVm> {
    const uuid = options.idempotenceUuid.toLowerCase();
    const answer = await this.#http.send({
      method: 'POST',
      path: '/vms',
      endpoint: '/vms',
      body: { ...intent, metadata: { ...intent.metadata, uuid } },
      repeatability: 'repeatable',
      acceptStatuses: [409],
    });
    if (answer.status !== 409) {
      return { uuid, taskUuid: taskUuidOf(answer.body), alreadyExisted: false };
    }
    const existing = await this.getVm(uuid);
    if (existing === undefined) {
      // The UUID was used by a VM that is gone (deleted, or its create failed): it cannot create another one.
      throw new PrismApiError({ method: 'POST', path: '/vms' }, 409, [
        {
          reason: 'ENTITY_ALREADY_EXISTS',
          message: `idempotence UUID ${uuid} was already used by a VM that no longer exists; reserve a new one`,
        },
      ]);
    }
    return { uuid, taskUuid: taskUuidOf(existing), alreadyExisted: true };
  }

  /**
   * PUT /vms/{uuid}: replaces the VM's spec with `intent`, which must carry the `metadata.spec_version` it was read with
   * (see `v3-put-body.ts`). Returns the task. A stale version fails with a 409 `PrismApiError`, or — on
   * newer Prism Central versions — with a FAILED task; `isEditConflict` recognises both.
   */
  async updateVm(uuid: string, intent: PrismVmIntent): Promise<string> {
    if (intent.metadata.spec_version === undefined) {
      throw new TypeError(`updateVm(${uuid}): metadata.spec_version is required; build the body from a fresh GET`);
    }
    const answer = await this.#http.send({
      method: 'PUT',
      path: `/vms/${encodeURIComponent(uuid)}`,
      endpoint: '/vms/{uuid}',
      body: intent,
      repeatability: 'once',
    });
    const taskUuid = taskUuidOf(answer.body);
    if (taskUuid === undefined) throw missingTask('PUT', `/vms/${uuid}`);
    return taskUuid;
  }

  /** DELETE /vms/{uuid}: the delete task, or undefined when the VM is already gone. */
  async deleteVm(uuid: string): Promise<string | undefined> {
    const path = `/vms/${encodeURIComponent(uuid)}`;
    const answer = await this.#http.send({
      method: 'DELETE',
      path,
      endpoint: '/vms/{uuid}',
      repeatability: 'repeatable',
      acceptStatuses: [404],
    });
    if (answer.status === 404) return undefined;
    const taskUuid = taskUuidOf(answer.body);
    if (taskUuid === undefined) throw missingTask('DELETE', path);
    return taskUuid;
  }

  /** The task, or undefined when Prism does not know it (`INVALID_UUID`). */
  async getTask(uuid: string): Promise<PrismTask | undefined> {
    const answer = await this.#http.send({
      method: 'GET',
      path: `/tasks/${encodeURIComponent(uuid)}`,
      endpoint: '/tasks/{uuid}',
      repeatability: 'repeatable',
      acceptStatuses: [404],
    });
    return answer.status === 404 ? undefined : (answer.body as PrismTask);
  }

  /**
   * Polls the task until it SUCCEEDED, FAILED or was ABORTED, and returns it; it is not an error for a task to fail —
   * look at `status`, `error_code` and `error_detail`. Counts the outcome in `prism_tasks_total`.
   */
  async waitForTask(uuid: string, options: WaitForTaskOptions): Promise<PrismTask> {
    const source: TaskSource<PrismTask> = {
      get: (id) => this.getTask(id),
      isFinished: isTaskFinished,
      unknownTask: (id) => new PrismApiError({ method: 'GET', path: `/tasks/${id}` }, 404, [{ reason: 'INVALID_UUID', message: `Prism Central does not know task ${id}` }]),
    };
    return pollTask(source, uuid, options, this.#metrics);
  }

  /**
   * Reserves `count` UUIDs that POST /vms accepts as `metadata.uuid`. `validForMinutes` defaults to
   * Prism's own default.
   */
  async createIdempotenceIdentifiers(
    count: number,
    options: { clientIdentifier?: string; validForMinutes?: number } = {},
  ): Promise<string[]> {
    const answer = await this.#http.send({
      method: 'POST',
      path: '/idempotence_identifiers',
      endpoint: '/idempotence_identifiers',
      body: {
        count,
        ...(options.clientIdentifier === undefined ? {} : { client_identifier: options.clientIdentifier }),
        ...(options.validForMinutes === undefined ? {} : { valid_duration_in_minutes: options.validForMinutes }),
      },
      repeatability: 'repeatable',
    });
    const uuids = (answer.body as { uuid_list?: unknown } | undefined)?.uuid_list;
    if (!Array.isArray(uuids) || uuids.length !== count || !uuids.every((u) => typeof u === 'string')) {
      throw new PrismApiError({ method: 'POST', path: '/idempotence_identifiers' }, 200, [
        { reason: 'INVALID_RESPONSE', message: `expected ${count} UUIDs in uuid_list` },
      ]);
    }
    return uuids;
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /**
   * POST /<kind>s/list over all pages (all entities without a filter), keyed by UUID: an entity created or deleted
   * between two pages shifts the offsets and may show up twice.
   */
  async #listAll<T extends { metadata: { uuid: string } }>(kind: string, filter: string | undefined): Promise<T[]> {
    const found = new Map<string, T>();
    for (let offset = 0; ; ) {
      const answer = await this.#http.send({
        method: 'POST',
        path: `/${kind}s/list`,
        endpoint: `/${kind}s/list`,
        body: { kind, ...(filter === undefined ? {} : { filter }), offset, length: LIST_PAGE_LENGTH },
        repeatability: 'repeatable',
      });
      const page = answer.body as { entities?: T[]; metadata?: { total_matches?: number } };
      const entities = page.entities ?? [];
      for (const entity of entities) found.set(entity.metadata.uuid.toLowerCase(), entity);
      offset += entities.length;
      if (entities.length === 0 || offset >= (page.metadata?.total_matches ?? 0)) return [...found.values()];
    }
  }

  /**
   * UUIDs of the storage containers named exactly `name` (of `clusterUuid`, when given). v3 has no storage container
   * list: like CAPX v1.7.0 (`ListStorageContainers`, controllers/helpers.go) this asks the groups API for
   * `storage_container` entities with their `container_name` and `cluster`, filtered by name, page by page.
   */
  async #storageContainerUuidsByName(name: string, { clusterUuid }: InventoryLookupOptions): Promise<string[]> {
    const found = new Set<string>();
    for (let offset = 0; ; ) {
      const answer = await this.#http.send({
        method: 'POST',
        path: '/groups',
        endpoint: '/groups',
        body: {
          entity_type: 'storage_container',
          group_member_attributes: [{ attribute: 'container_name' }, { attribute: 'cluster' }],
          filter_criteria: `container_name==${encodeFiqlValue(name)}`,
          group_member_offset: offset,
          group_member_count: LIST_PAGE_LENGTH,
        },
        repeatability: 'repeatable',
      });
      const groups = answer.body as PrismGroupsResponse;
      const entities = groups.group_results?.[0]?.entity_results ?? [];
      for (const entity of entities) {
        const attribute = (attributeName: string): string | undefined => entity.data?.find((field) => field.name === attributeName)?.values?.[0]?.values?.[0];
        const onTheCluster = clusterUuid === undefined || attribute('cluster')?.toLowerCase() === clusterUuid.toLowerCase();
        if (attribute('container_name') === name && onTheCluster) found.add(entity.entity_id.toLowerCase());
      }
      offset += entities.length;
      if (entities.length === 0 || offset >= (groups.filtered_entity_count ?? 0)) return [...found];
    }
  }
}

/**
 * `status.execution_context.task_uuid`: a string in POST/PUT/DELETE answers, a list in GET; the
 * first entry of a list.
 */
export function taskUuidOf(entity: unknown): string | undefined {
  const taskUuid = (entity as { status?: { execution_context?: { task_uuid?: unknown } } } | undefined)?.status
    ?.execution_context?.task_uuid;
  if (typeof taskUuid === 'string') return taskUuid;
  if (Array.isArray(taskUuid) && typeof taskUuid[0] === 'string') return taskUuid[0];
  return undefined;
}

/** Whether a VM on `options.clusterUuid` can use the subnet; any can when no cluster is given. */
function onCluster(entity: PrismInventoryEntity, { clusterUuid }: InventoryLookupOptions): boolean {
  if (clusterUuid === undefined || entity.spec?.resources?.subnet_type === 'OVERLAY') return true;
  return entity.spec?.cluster_reference?.uuid.toLowerCase() === clusterUuid.toLowerCase();
}

/** FIQL reserves `,` `;` `(` `)` `=` `!` `<` `>` and quotes; percent-encoding them keeps a name a single value. */
function encodeFiqlValue(value: string): string {
  return value.replace(/[%,;()=!<>'" ]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

function missingTask(method: string, path: string): PrismApiError {
  return new PrismApiError({ method, path }, 202, [
    { reason: 'INVALID_RESPONSE', message: 'the answer has no status.execution_context.task_uuid' },
  ]);
}
