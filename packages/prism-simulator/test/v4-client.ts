// A minimal v4 client for the HTTP-level tests: Basic auth, JSON bodies, an NTNX-Request-Id on every write unless
// the test chooses one (or none), If-Match when given, and task polling. It shows what a client sees.

import { randomUUID } from 'node:crypto';
import { PRISM_TASKS_PATH, VMM_VMS_PATH, type PrismSimulator } from '../src/index.ts';
import { pollUntilTaskEnds, readReply, type Reply } from './prism-client.ts';

export interface AppMessageJson {
  $objectType: string;
  code: string;
  errorGroup: string;
  message: string;
  severity: string;
}

export interface V4ErrorJson {
  $dataItemDiscriminator: string;
  data: { $objectType: string; $errorItemDiscriminator: string; error: AppMessageJson[] };
}

export interface V4VmJson {
  $objectType: string;
  $reserved: Record<string, unknown>;
  extId: string;
  name: string;
  description?: string;
  numSockets: number;
  numCoresPerSocket: number;
  numThreadsPerCore: number;
  memorySizeBytes: number;
  powerState: string;
  cluster: { extId: string };
  categories: { extId: string }[];
  customAttributes?: string[];
  disks: { extId: string; diskAddress: { busType: string; index: number }; backingInfo: { diskSizeBytes?: number; dataSource?: { reference: { imageExtId?: string } } } }[];
  cdRoms: unknown[];
  nics: {
    extId: string;
    backingInfo: { macAddress: string; isConnected: boolean };
    networkInfo: { subnet: { extId: string }; ipv4Config: { ipAddress?: { value: string } }; ipv4Info?: { learnedIpAddresses: { value: string }[] } };
    nicNetworkInfo: { $objectType: string; subnet: { extId: string } };
  }[];
  [key: string]: unknown;
}

export interface V4TaskJson {
  $objectType: string;
  extId: string;
  status: string;
  progressPercentage: number;
  operation: string;
  entitiesAffected: { extId: string; rel: string }[];
  errorMessages?: AppMessageJson[];
  legacyErrorMessage?: string;
  createdTime: string;
  completedTime?: string;
}

export interface V4ListJson<Item = V4VmJson> {
  data?: Item[];
  metadata: { totalAvailableResults: number; links: { href: string; rel: string }[]; flags: { name: string; value: boolean }[] };
}

export interface V4Options {
  /** `null` sends no NTNX-Request-Id; a string sends that one; undefined sends a fresh one on writes. */
  requestId?: string | null;
  ifMatch?: string;
  headers?: Record<string, string>;
}

/** A minimal Vm body: the default cluster's image and IPAM subnet, as the SDK would send it. */
export function v4VmBody(simulator: PrismSimulator, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const [image] = simulator.images;
  const subnet = simulator.subnets.find((s) => s.ipam);
  return {
    $objectType: 'vmm.v4.ahv.config.Vm',
    name,
    numSockets: 1,
    numCoresPerSocket: 2,
    numThreadsPerCore: 1,
    memorySizeBytes: 2 * 1024 ** 3,
    cluster: { extId: simulator.clusters[0]?.uuid },
    disks: [
      {
        diskAddress: { busType: 'SCSI', index: 0 },
        backingInfo: { $objectType: 'vmm.v4.ahv.config.VmDisk', diskSizeBytes: 20 * 1024 ** 3, dataSource: { reference: { $objectType: 'vmm.v4.ahv.config.ImageReference', imageExtId: image?.uuid } } },
      },
    ],
    nics: [{ nicNetworkInfo: { $objectType: 'vmm.v4.ahv.config.VirtualEthernetNicNetworkInfo', subnet: { extId: subnet?.uuid } } }],
    ...extra,
  };
}

export class V4TestClient {
  readonly simulator: PrismSimulator;
  private readonly authorization: string;

  constructor(simulator: PrismSimulator) {
    this.simulator = simulator;
    this.authorization = `Basic ${Buffer.from(`${simulator.username}:${simulator.password}`).toString('base64')}`;
  }

  /** `path` is the full path, e.g. `/api/vmm/v4.2/ahv/config/vms`. */
  async request(method: string, path: string, body?: unknown, options: V4Options = {}): Promise<Reply> {
    const write = method !== 'GET' && method !== 'OPTIONS';
    const requestId = options.requestId === undefined ? (write ? randomUUID() : undefined) : options.requestId;
    const response = await fetch(`${this.simulator.url}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        authorization: this.authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(requestId === undefined || requestId === null ? {} : { 'ntnx-request-id': requestId }),
        ...(options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch }),
        ...options.headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return readReply(response);
  }

  async createVm(body: unknown, options: V4Options = {}): Promise<{ taskExtId: string; reply: Reply }> {
    const reply = await this.request('POST', VMM_VMS_PATH, body, options);
    if (reply.status !== 202) throw new Error(`POST ${VMM_VMS_PATH} answered ${reply.status}: ${reply.text}`);
    return { taskExtId: (reply.json as { data: { extId: string } }).data.extId, reply };
  }

  async getTask(extId: string): Promise<V4TaskJson> {
    const reply = await this.request('GET', `${PRISM_TASKS_PATH}/${extId}`);
    if (reply.status !== 200) throw new Error(`GET task ${extId} answered ${reply.status}: ${reply.text}`);
    return (reply.json as { data: V4TaskJson }).data;
  }

  /** Polls the task until it ends, for up to 30 s. */
  waitForTask(extId: string, timeoutMs = 30_000): Promise<V4TaskJson> {
    return pollUntilTaskEnds(extId, (id) => this.getTask(id), timeoutMs);
  }

  /** Creates a VM, waits for its task, and returns its extId. */
  async createReadyVm(body: unknown): Promise<string> {
    const { taskExtId } = await this.createVm(body);
    const task = await this.waitForTask(taskExtId);
    if (task.status !== 'SUCCEEDED') throw new Error(`create task ${task.status}: ${task.legacyErrorMessage ?? ''}`);
    const entity = task.entitiesAffected.find((e) => e.rel === 'vmm:ahv:config:vm');
    if (!entity) throw new Error('the create task names no VM');
    return entity.extId;
  }

  async getVm(extId: string): Promise<{ vm: V4VmJson; etag: string }> {
    const reply = await this.request('GET', `${VMM_VMS_PATH}/${extId}`);
    if (reply.status !== 200) throw new Error(`GET VM ${extId} answered ${reply.status}: ${reply.text}`);
    return { vm: (reply.json as { data: V4VmJson }).data, etag: reply.headers.get('etag') ?? '' };
  }

  /** A write to the VM with its current ETag; returns the task once it finished. */
  async writeWithEtag(method: string, path: string, extId: string, change?: (vm: V4VmJson) => void): Promise<V4TaskJson> {
    const { vm, etag } = await this.getVm(extId);
    change?.(vm);
    const reply = await this.request(method, path, change ? vm : undefined, { ifMatch: etag });
    if (reply.status !== 202) throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text}`);
    return this.waitForTask((reply.json as { data: { extId: string } }).data.extId);
  }
}

export function firstAppMessage(reply: Reply): AppMessageJson {
  const message = (reply.json as V4ErrorJson | undefined)?.data.error[0];
  if (!message) throw new Error(`no AppMessage in ${reply.text}`);
  return message;
}
