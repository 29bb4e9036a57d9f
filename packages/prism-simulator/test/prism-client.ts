// A minimal v3 client for the HTTP-level tests: it talks to the simulator the way an operator would (Basic
// auth, JSON bodies, polling tasks) and exposes what a client sees: status codes, headers and bodies.

import { setTimeout as sleep } from 'node:timers/promises';
import { PRISM_BASE_PATH, startPrismSimulator, type PrismSimulator, type PrismSimulatorOptions } from '../src/index.ts';

/** Short tasks keep tests fast; learned IPs show at once so tests need not wait for them. */
export const FAST_TIMINGS = { createMs: 15, updateMs: 15, deleteMs: 15, learnedIpMs: 0 };

export function startFastSimulator(options: PrismSimulatorOptions = {}): Promise<PrismSimulator> {
  return startPrismSimulator({ ...options, timings: { ...FAST_TIMINGS, ...options.timings } });
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  json: unknown;
}

/** A response as tests look at it: the body as text and, when it is JSON, parsed (a 401's body, for one, is not). */
export async function readReply(response: Response): Promise<Reply> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export interface ErrorJson {
  api_version: string;
  code: number;
  kind: string;
  state: string;
  message_list: { reason: string; message: string; details?: Record<string, string[]> }[];
}

export interface IpEndpointJson {
  ip: string;
  type: string;
}

export interface NicJson {
  uuid: string;
  mac_address: string;
  is_connected: boolean;
  subnet_reference: { kind: string; uuid: string; name?: string };
  ip_endpoint_list: IpEndpointJson[];
  [key: string]: unknown;
}

export interface DiskJson {
  uuid: string;
  disk_size_mib?: number;
  disk_size_bytes?: number;
  device_properties: { device_type: string; disk_address: { adapter_type: string; device_index: number } };
  data_source_reference?: { kind: string; uuid: string };
  [key: string]: unknown;
}

export interface ResourcesJson {
  num_sockets: number;
  num_vcpus_per_socket: number;
  num_threads_per_core: number;
  memory_size_mib: number;
  power_state: string;
  disk_list: DiskJson[];
  nic_list: NicJson[];
  [key: string]: unknown;
}

/** A spec as a client sends it: everything but the name may be left to the server. */
export interface SpecJson {
  name: string;
  description?: string;
  cluster_reference?: { kind: string; uuid: string; name?: string };
  resources: {
    num_sockets?: number;
    num_vcpus_per_socket?: number;
    memory_size_mib?: number;
    power_state?: string;
    disk_list?: Partial<DiskJson>[];
    nic_list?: Partial<NicJson>[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A spec as the server shows it. */
export interface FullSpecJson {
  name: string;
  description?: string;
  cluster_reference: { kind: string; uuid: string; name?: string };
  resources: ResourcesJson;
  [key: string]: unknown;
}

export interface VmJson {
  api_version?: string;
  metadata: {
    kind: string;
    uuid: string;
    spec_version: number;
    spec_hash: string;
    entity_version: string;
    categories: Record<string, string>;
    project_reference: { kind: string; name: string; uuid: string };
    owner_reference: { kind: string; name: string; uuid: string };
    creation_time: string;
    last_update_time: string;
  };
  spec: FullSpecJson;
  status: {
    name: string;
    state: string;
    cluster_reference: { kind: string; uuid: string; name?: string };
    resources?: ResourcesJson & { hypervisor_type: string; bios_uuid: string };
    execution_context: { task_uuid: string[] };
    message_list?: { reason: string; message: string }[];
  };
}

export interface AcceptedJson {
  api_version: string;
  metadata: { kind: string; uuid: string; spec_version: number; [key: string]: unknown };
  spec: unknown;
  status: { state: string; execution_context: { task_uuid: string } };
}

export interface TaskJson {
  uuid: string;
  status: string;
  percentage_complete: number;
  progress_message: string;
  operation_type: string;
  entity_reference_list: { kind: string; uuid: string }[];
  cluster_reference?: { kind: string; uuid: string };
  creation_time: string;
  start_time?: string;
  completion_time?: string;
  last_update_time: string;
  logical_timestamp: number;
  error_code?: string;
  error_detail?: string;
}

export interface ListJson {
  api_version: string;
  metadata: { kind: string; filter?: string; offset: number; length: number; total_matches: number; sort_attribute?: string; sort_order?: string };
  entities: VmJson[];
}

export class PrismTestClient {
  readonly simulator: PrismSimulator;
  private readonly authorization: string | undefined;

  constructor(simulator: PrismSimulator, credentials: { username: string; password: string } | 'none' = simulator) {
    this.simulator = simulator;
    this.authorization = credentials === 'none' ? undefined : `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  }

  /** `path` is below the v3 base path, e.g. `/vms/list`. */
  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const response = await fetch(`${this.simulator.url}${PRISM_BASE_PATH}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.authorization === undefined ? {} : { authorization: this.authorization }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return readReply(response);
  }

  async createVm(spec: SpecJson, metadata: Record<string, unknown> = {}): Promise<{ uuid: string; taskUuid: string; reply: Reply }> {
    const reply = await this.request('POST', '/vms', { metadata: { kind: 'vm', ...metadata }, spec });
    if (reply.status !== 202) throw new Error(`POST /vms answered ${reply.status}: ${reply.text}`);
    const accepted = reply.json as AcceptedJson;
    return { uuid: accepted.metadata.uuid, taskUuid: accepted.status.execution_context.task_uuid, reply };
  }

  /** Creates a VM and waits for its task to succeed. */
  async createReadyVm(spec: SpecJson): Promise<VmJson> {
    const { uuid, taskUuid } = await this.createVm(spec);
    const task = await this.waitForTask(taskUuid);
    if (task.status !== 'SUCCEEDED') throw new Error(`create task ${task.status}: ${task.error_detail ?? ''}`);
    return this.getVm(uuid);
  }

  async getVm(uuid: string): Promise<VmJson> {
    const reply = await this.request('GET', `/vms/${uuid}`);
    if (reply.status !== 200) throw new Error(`GET /vms/${uuid} answered ${reply.status}: ${reply.text}`);
    return reply.json as VmJson;
  }

  async getTask(uuid: string): Promise<TaskJson> {
    const reply = await this.request('GET', `/tasks/${uuid}`);
    if (reply.status !== 200) throw new Error(`GET /tasks/${uuid} answered ${reply.status}: ${reply.text}`);
    return reply.json as TaskJson;
  }

  /** Polls the task until it is no longer QUEUED or RUNNING, for up to 30 s. */
  waitForTask(uuid: string, timeoutMs = 30_000): Promise<TaskJson> {
    return pollUntilTaskEnds(uuid, (id) => this.getTask(id), timeoutMs);
  }

  /** The documented update flow: GET, copy spec and metadata (not status), change, PUT. */
  async putVm(uuid: string, change: (spec: VmJson['spec']) => void, metadata: Partial<{ spec_version: number }> = {}): Promise<Reply> {
    const current = await this.getVm(uuid);
    const spec = structuredClone(current.spec);
    change(spec);
    return this.request('PUT', `/vms/${uuid}`, { metadata: { kind: 'vm', spec_version: current.metadata.spec_version, ...metadata }, spec });
  }

  /** PUTs a change and waits for its task; returns the task. */
  async updateVm(uuid: string, change: (spec: VmJson['spec']) => void): Promise<TaskJson> {
    const reply = await this.putVm(uuid, change);
    if (reply.status !== 202) throw new Error(`PUT answered ${reply.status}: ${reply.text}`);
    return this.waitForTask((reply.json as AcceptedJson).status.execution_context.task_uuid);
  }
}

/**
 * Reads a task (v3 or v4: both say QUEUED and RUNNING until it ends) until it ends. Bounded by time, not by a count of
 * polls: 400 polls of a fast machine took under 3 s, less than a task a test slows on purpose (a slow-task fault of 3 s).
 */
export async function pollUntilTaskEnds<T extends { status: string }>(id: string, read: (id: string) => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await read(id);
    if (task.status !== 'QUEUED' && task.status !== 'RUNNING') return task;
    if (Date.now() > deadline) throw new Error(`task ${id} did not finish within ${timeoutMs / 1000} s: ${task.status}`);
    await sleep(10);
  }
}

export function firstMessage(reply: Reply): ErrorJson['message_list'][number] {
  const message = (reply.json as ErrorJson).message_list[0];
  if (!message) throw new Error(`no message in ${reply.text}`);
  return message;
}
