// The Prism Central the e2e spec's operator talks to: a simulator started here, on 127.0.0.1 with TLS (the local
// cluster runs the operator Pod as a local process), or, on kind, the one kind/e2e.sh started on the runner
// (E2E_PRISM_URL, E2E_PRISM_CA_FILE). Faults and inspection go through the simulator's admin API either way. Both
// simulators are seeded from prism-simulator.json (GPUs, storage containers), which kind/e2e.sh passes as --config.
//
// E2E_PRISM_API chooses the mode, so that the same spec runs on each Prism Central the operator must handle; the
// simulator serves only the API the operator is to end up on, so a request to the other one fails the spec:
//   v3    (default) the Secret says PRISM_API_VERSION=v3, and the simulator serves v3 only (v4 answers 404);
//   v4    the Secret says PRISM_API_VERSION=v4, and the simulator serves v4 only (v3 answers 404);
//   auto  the Secret says nothing, so the operator's default, `auto`, must find that this v4-only Prism Central
//         serves VMM v4.2 and use it.
// kind/e2e.sh starts its simulator with the same `--apis` (servedApi).

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  DEFAULT_PASSWORD,
  DEFAULT_USERNAME,
  startPrismSimulator,
  type ActiveFault,
  type FaultRule,
  type LoggedRequest,
  type PrismSimulatorOptions,
  type SimulatorInspection,
} from '@k8s-operators/prism-simulator';
import { Agent, request } from 'undici';
import { PrismCredentials } from '../../src/config/prism-credentials.ts';
import type { PrismClientOptions } from '../../src/prism/prism-client-options.ts';
import { PrismClient } from '../../src/prism/v3/prism-client.ts';
import { withPowerState } from '../../src/prism/v3/v3-put-body.ts';
import { PrismV4Client, vmExtIdOf } from '../../src/prism/v4/prism-v4-client.ts';

export const E2E_PRISM_MODES = ['v3', 'v4', 'auto'] as const;
export type E2ePrismMode = (typeof E2E_PRISM_MODES)[number];
/** The one API the simulator serves in a mode, and so the one the operator must use. */
export type E2ePrismApi = 'v3' | 'v4';

export function servedApi(mode: E2ePrismMode): E2ePrismApi {
  return mode === 'v3' ? 'v3' : 'v4';
}

/** The simulator's seeds for the e2e spec: its cluster's GPUs and storage containers (also kind/e2e.sh's --config). */
export const SIMULATOR_CONFIG = new URL('./prism-simulator.json', import.meta.url);

/** The simulator's endpoint names (for faults and request counts) of the calls that differ between the APIs. */
export interface ApiEndpoints {
  createVm: 'POST /vms' | 'POST /api/vmm/v4.2/ahv/config/vms';
  updateVm: 'PUT /vms/{uuid}' | 'PUT /api/vmm/v4.2/ahv/config/vms/{extId}';
}

export const API_ENDPOINTS: Readonly<Record<E2ePrismApi, ApiEndpoints>> = {
  v3: { createVm: 'POST /vms', updateVm: 'PUT /vms/{uuid}' },
  v4: { createVm: 'POST /api/vmm/v4.2/ahv/config/vms', updateVm: 'PUT /api/vmm/v4.2/ahv/config/vms/{extId}' },
};

export function e2ePrismMode(env: NodeJS.ProcessEnv = process.env): E2ePrismMode {
  const mode = E2E_PRISM_MODES.find((m) => m === (env.E2E_PRISM_API ?? 'v3'));
  if (mode === undefined) throw new Error(`E2E_PRISM_API must be one of ${E2E_PRISM_MODES.join(', ')}, not ${JSON.stringify(env.E2E_PRISM_API)}`);
  return mode;
}

/** What Prism shows of a VM, read as a person checks it: through the API the Prism Central serves, not the operator. */
export interface ShownVm {
  /** The project's uuid (v3 `metadata.project_reference`, v4 `project.extId`). */
  projectUuid: string | undefined;
  /** v3 `spec.resources.gpu_list`, v4 `gpus`. */
  gpus: { deviceId: number; mode: string }[];
  /** The storage container of each disk (not CD-ROM), in the VM's order. */
  diskContainerUuids: (string | undefined)[];
}

/** Someone other than the operator at Prism Central, on the API it serves. */
export interface PrismByHand {
  /** Makes a VM (1 socket, 1 vCPU) as a person would, waits for its task, and returns its uuid. */
  createVm(name: string, memoryMib: number): Promise<string>;
  /** The VM as Prism shows it, or undefined when there is none. */
  showVm(uuid: string): Promise<ShownVm | undefined>;
  /** Saves the VM as it is, which moves its spec version (v3) or ETag (v4) on: a second writer's edit. */
  resaveVm(uuid: string): Promise<void>;
  close(): Promise<void>;
}

export interface PrismUnderTest {
  /** E2E_PRISM_API, the API the simulator serves and the operator must use, and that API's endpoint names. */
  mode: E2ePrismMode;
  api: E2ePrismApi;
  endpoints: ApiEndpoints;
  url: URL;
  caCertPem: string;
  username: string;
  password: string;
  clusterUuid: string;
  /** The cluster's storage containers by name (uuid), as prism-simulator.json seeds them. */
  storageContainers: Readonly<Record<string, string>>;
  inspect(): Promise<SimulatorInspection>;
  /** The simulator's request log, each request with its path (the latest REQUEST_LOG_LIMIT). */
  requestLog(): Promise<LoggedRequest[]>;
  faults(): Promise<ActiveFault[]>;
  /** Replaces every fault rule, with the seed their probabilities draw from. */
  setFaults(seed: number, rules: FaultRule[]): Promise<void>;
  /** Prism with the operator's credentials, for what someone else does and sees "in Prism". */
  byHand(): PrismByHand;
  /** The keys of the `prism-central` Secret. */
  secretData(): Record<string, string>;
  stop(): Promise<void>;
}

export async function prismUnderTest(env: NodeJS.ProcessEnv = process.env): Promise<PrismUnderTest> {
  const mode = e2ePrismMode(env);
  const seeds = JSON.parse(await readFile(SIMULATOR_CONFIG, 'utf8')) as PrismSimulatorOptions;
  const [seededCluster] = seeds.clusters ?? [];
  if (seededCluster === undefined) throw new Error(`${SIMULATOR_CONFIG.pathname} names no cluster`);
  const storageContainers = Object.fromEntries((seededCluster.storageContainers ?? []).map((container) => [container.name, container.uuid]));
  if (env.E2E_PRISM_URL !== undefined) {
    const caFile = env.E2E_PRISM_CA_FILE;
    if (caFile === undefined) throw new Error('E2E_PRISM_URL needs E2E_PRISM_CA_FILE, the CA of the simulator\'s certificate');
    return connect({
      url: new URL(env.E2E_PRISM_URL),
      caCertPem: await readFile(caFile, 'utf8'),
      username: env.E2E_PRISM_USER ?? DEFAULT_USERNAME,
      password: env.E2E_PRISM_PASSWORD ?? DEFAULT_PASSWORD,
      clusterUuid: env.E2E_PRISM_CLUSTER_UUID ?? seededCluster.uuid,
      storageContainers,
      stop: () => Promise.resolve(),
    }, mode);
  }
  const simulator = await startPrismSimulator({
    ...seeds,
    apis: servedApi(mode),
    tls: true,
    host: '127.0.0.1',
    // Tasks long enough that the operator's task following is exercised, short enough for a quick spec.
    timings: { createMs: 300, updateMs: 300, deleteMs: 300, learnedIpMs: 300 },
  });
  return connect({
    url: new URL(simulator.url),
    caCertPem: simulator.caCertPem ?? '',
    username: simulator.username,
    password: simulator.password,
    clusterUuid: seededCluster.uuid,
    storageContainers,
    stop: () => simulator.stop(),
  }, mode);
}

function connect(base: Pick<PrismUnderTest, 'url' | 'caCertPem' | 'username' | 'password' | 'clusterUuid' | 'storageContainers' | 'stop'>, mode: E2ePrismMode): PrismUnderTest {
  const api = servedApi(mode);
  const agent = new Agent({ connect: { ca: base.caCertPem } });
  const admin = async (method: 'GET' | 'PUT', path: string, body?: unknown): Promise<unknown> => {
    const response = await request(new URL(`/__sim${path}`, base.url), {
      dispatcher: agent,
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} /__sim${path}: ${String(response.statusCode)} ${text}`);
    return JSON.parse(text) as unknown;
  };
  return {
    ...base,
    mode,
    api,
    endpoints: API_ENDPOINTS[api],
    inspect: async () => (await admin('GET', '/inspect')) as SimulatorInspection,
    requestLog: async () => ((await admin('GET', '/requests')) as { requests: LoggedRequest[] }).requests,
    faults: async () => ((await admin('GET', '/faults')) as { rules: ActiveFault[] }).rules,
    setFaults: async (seed, rules) => {
      await admin('PUT', '/faults', { seed, rules });
    },
    byHand: () => {
      const options: PrismClientOptions = {
        origin: base.url.origin,
        credentials: new PrismCredentials(base.username, base.password),
        tls: { caCertPem: base.caCertPem, insecureSkipVerify: false },
        retry: { maxAttempts: 1 },
      };
      return api === 'v3' ? v3ByHand(new PrismClient(options), base.clusterUuid) : v4ByHand(new PrismV4Client(options), base.clusterUuid);
    },
    secretData: () => ({
      PRISM_HOST: base.url.hostname,
      PRISM_PORT: base.url.port,
      PRISM_USER: base.username,
      PRISM_PASS: base.password,
      PRISM_CLUSTERUUID: base.clusterUuid,
      PRISM_CA_CERT: base.caCertPem,
      ...(mode === 'auto' ? {} : { PRISM_API_VERSION: mode }),
    }),
    stop: async () => {
      await agent.close();
      await base.stop();
    },
  };
}

const TASK_POLL = { pollIntervalMs: 100, timeoutMs: 60_000 };

function v3ByHand(client: PrismClient, clusterUuid: string): PrismByHand {
  return {
    async createVm(name, memoryMib) {
      const [token = ''] = await client.createIdempotenceIdentifiers(1);
      const created = await client.createVm({
        metadata: { kind: 'vm' },
        spec: { name, cluster_reference: { kind: 'cluster', uuid: clusterUuid }, resources: { num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: memoryMib } },
      }, { idempotenceUuid: token });
      const task = await client.waitForTask(created.taskUuid ?? '', { operation: 'create', ...TASK_POLL });
      if (task.status !== 'SUCCEEDED') throw new Error(`creating VM ${name} through v3 by hand: task ${task.uuid} ${task.status} ${task.error_detail ?? ''}`);
      return created.uuid;
    },
    async showVm(uuid) {
      const vm = await client.getVm(uuid);
      if (vm === undefined) return undefined;
      const gpus = (vm.spec.resources.gpu_list ?? []) as { device_id: number; mode: string }[];
      return {
        projectUuid: (vm.metadata.project_reference as { uuid?: string } | undefined)?.uuid,
        gpus: gpus.map((gpu) => ({ deviceId: gpu.device_id, mode: gpu.mode })),
        diskContainerUuids: (vm.spec.resources.disk_list ?? [])
          .filter((disk) => disk.device_properties?.device_type !== 'CDROM')
          .map((disk) => disk.storage_config?.storage_container_reference?.uuid),
      };
    },
    async resaveVm(uuid) {
      const vm = await client.getVm(uuid);
      if (vm !== undefined) await client.updateVm(uuid, withPowerState(vm, vm.status.resources?.power_state === 'ON' ? 'ON' : 'OFF'));
    },
    close: () => client.close(),
  };
}

function v4ByHand(client: PrismV4Client, clusterUuid: string): PrismByHand {
  return {
    async createVm(name, memoryMib) {
      const taskExtId = await client.createVm({ name, cluster: { extId: clusterUuid }, numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: memoryMib * 1024 * 1024 }, { requestId: randomUUID() });
      const task = await client.waitForTask(taskExtId, { operation: 'create', ...TASK_POLL });
      const extId = vmExtIdOf(task);
      if (task.status !== 'SUCCEEDED' || extId === undefined) throw new Error(`creating VM ${name} through v4 by hand: task ${task.extId} ${task.status} ${JSON.stringify(task.errorMessages ?? [])}`);
      return extId;
    },
    async showVm(uuid) {
      const { vm } = await client.getVm(uuid) ?? {};
      if (vm === undefined) return undefined;
      const gpus = (vm.gpus ?? []) as { deviceId: number; mode: string }[];
      const disks = (vm.disks ?? []) as { backingInfo?: { storageContainer?: { extId?: string } } }[];
      return {
        projectUuid: (vm.project as { extId?: string } | undefined)?.extId,
        gpus: gpus.map(({ deviceId, mode }) => ({ deviceId, mode })),
        diskContainerUuids: disks.map((disk) => disk.backingInfo?.storageContainer?.extId),
      };
    },
    async resaveVm(uuid) {
      const read = await client.getVm(uuid);
      if (read !== undefined) await client.updateVm(uuid, read.vm, read.etag);
    },
    close: () => client.close(),
  };
}
