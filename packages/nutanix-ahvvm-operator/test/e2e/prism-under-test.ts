// The Prism Central the e2e spec's operator talks to: a simulator started here, on 127.0.0.1 with TLS (the local
// cluster runs the operator Pod as a local process), or, on kind, the one kind/e2e.sh started on the runner
// (E2E_PRISM_URL, E2E_PRISM_CA_FILE). Faults and inspection go through the simulator's admin API either way.
//
// E2E_PRISM_API chooses the API the installed operator speaks for VMs, so that the same spec runs on both: `v3`
// (the default; the Secret says PRISM_API_VERSION=v3) or `v4` (the Secret says nothing: the operator's default,
// `auto`, must find that this Prism Central serves VMM v4.2 and use it).

import { readFile } from 'node:fs/promises';
import {
  DEFAULT_CLUSTERS,
  DEFAULT_PASSWORD,
  DEFAULT_USERNAME,
  startPrismSimulator,
  type ActiveFault,
  type FaultRule,
  type SimulatorInspection,
} from '@k8s-operators/prism-simulator';
import { Agent, request } from 'undici';
import { PrismCredentials } from '../../src/config/prism-credentials.ts';
import { PrismClient } from '../../src/prism/v3/prism-client.ts';

export type E2ePrismApi = 'v3' | 'v4';

/** The simulator's endpoint names (for faults and request counts) of the calls that differ between the APIs. */
export interface ApiEndpoints {
  createVm: 'POST /vms' | 'POST /api/vmm/v4.2/ahv/config/vms';
  updateVm: 'PUT /vms/{uuid}' | 'PUT /api/vmm/v4.2/ahv/config/vms/{extId}';
}

export const API_ENDPOINTS: Readonly<Record<E2ePrismApi, ApiEndpoints>> = {
  v3: { createVm: 'POST /vms', updateVm: 'PUT /vms/{uuid}' },
  v4: { createVm: 'POST /api/vmm/v4.2/ahv/config/vms', updateVm: 'PUT /api/vmm/v4.2/ahv/config/vms/{extId}' },
};

export function e2ePrismApi(env: NodeJS.ProcessEnv = process.env): E2ePrismApi {
  const api = env.E2E_PRISM_API ?? 'v3';
  if (api !== 'v3' && api !== 'v4') throw new Error(`E2E_PRISM_API must be v3 or v4, not ${JSON.stringify(api)}`);
  return api;
}

export interface PrismUnderTest {
  /** The API the operator is to use (E2E_PRISM_API), and its endpoint names. */
  api: E2ePrismApi;
  endpoints: ApiEndpoints;
  url: URL;
  caCertPem: string;
  username: string;
  password: string;
  clusterUuid: string;
  inspect(): Promise<SimulatorInspection>;
  faults(): Promise<ActiveFault[]>;
  /** Replaces every fault rule, with the seed their probabilities draw from. */
  setFaults(seed: number, rules: FaultRule[]): Promise<void>;
  /** A Prism client with the operator's credentials, for changes made "in Prism" by someone else. */
  client(): PrismClient;
  /** The keys of the `prism-central` Secret. */
  secretData(): Record<string, string>;
  stop(): Promise<void>;
}

export async function prismUnderTest(env: NodeJS.ProcessEnv = process.env): Promise<PrismUnderTest> {
  const api = e2ePrismApi(env);
  if (env.E2E_PRISM_URL !== undefined) {
    const caFile = env.E2E_PRISM_CA_FILE;
    if (caFile === undefined) throw new Error('E2E_PRISM_URL needs E2E_PRISM_CA_FILE, the CA of the simulator\'s certificate');
    return connect({
      url: new URL(env.E2E_PRISM_URL),
      caCertPem: await readFile(caFile, 'utf8'),
      username: env.E2E_PRISM_USER ?? DEFAULT_USERNAME,
      password: env.E2E_PRISM_PASSWORD ?? DEFAULT_PASSWORD,
      clusterUuid: env.E2E_PRISM_CLUSTER_UUID ?? DEFAULT_CLUSTERS[0]?.uuid ?? '',
      stop: () => Promise.resolve(),
    }, api);
  }
  // Tasks long enough that the operator's task following is exercised, short enough for a quick spec.
  const simulator = await startPrismSimulator({ tls: true, host: '127.0.0.1', timings: { createMs: 300, updateMs: 300, deleteMs: 300, learnedIpMs: 300 } });
  return connect({
    url: new URL(simulator.url),
    caCertPem: simulator.caCertPem ?? '',
    username: simulator.username,
    password: simulator.password,
    clusterUuid: simulator.clusters[0]?.uuid ?? '',
    stop: () => simulator.stop(),
  }, api);
}

function connect(base: Pick<PrismUnderTest, 'url' | 'caCertPem' | 'username' | 'password' | 'clusterUuid' | 'stop'>, api: E2ePrismApi): PrismUnderTest {
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
    api,
    endpoints: API_ENDPOINTS[api],
    inspect: async () => (await admin('GET', '/inspect')) as SimulatorInspection,
    faults: async () => ((await admin('GET', '/faults')) as { rules: ActiveFault[] }).rules,
    setFaults: async (seed, rules) => {
      await admin('PUT', '/faults', { seed, rules });
    },
    client: () => new PrismClient({
      origin: base.url.origin,
      credentials: new PrismCredentials(base.username, base.password),
      tls: { caCertPem: base.caCertPem, insecureSkipVerify: false },
      retry: { maxAttempts: 1 },
    }),
    secretData: () => ({
      PRISM_HOST: base.url.hostname,
      PRISM_PORT: base.url.port,
      PRISM_USER: base.username,
      PRISM_PASS: base.password,
      PRISM_CLUSTERUUID: base.clusterUuid,
      PRISM_CA_CERT: base.caCertPem,
      ...(api === 'v3' ? { PRISM_API_VERSION: 'v3' } : {}),
    }),
    stop: async () => {
      await agent.close();
      await base.stop();
    },
  };
}
