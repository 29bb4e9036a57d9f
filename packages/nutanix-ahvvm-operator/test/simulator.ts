// The real Prism Central simulator over TLS, and v3 and v4 clients pointed at it, for the client and update-flow tests.

import { setTimeout as sleep } from 'node:timers/promises';
import { startPrismSimulator, type PrismEndpoint, type PrismSimulator, type PrismSimulatorOptions, type RequestOutcome } from '@k8s-operators/prism-simulator';
import { PrismCredentials } from '../src/config/prism-credentials.ts';
import type { PrismClientOptions } from '../src/prism/prism-client-options.ts';
import { PrismClient } from '../src/prism/v3/prism-client.ts';
import { PrismV4Client } from '../src/prism/v4/prism-v4-client.ts';
import type { DesiredVmContext } from '../src/desired/desired-vm.ts';
import { imagesMatchingNewestFirst } from '../src/vm/image-lookup.ts';

/** Short tasks keep the tests fast. */
export const FAST_TIMINGS = { createMs: 15, updateMs: 15, deleteMs: 15, learnedIpMs: 0 };

export function startSimulator(options: PrismSimulatorOptions = {}): Promise<PrismSimulator> {
  return startPrismSimulator({ tls: true, ...options, timings: { ...FAST_TIMINGS, ...options.timings } });
}

/** How to reach the simulator: its origin and credentials, trusting its CA. */
function connectionTo(simulator: PrismSimulator): Pick<PrismClientOptions, 'origin' | 'credentials' | 'tls'> {
  return {
    origin: simulator.url,
    credentials: new PrismCredentials(simulator.username, simulator.password),
    tls: { ...(simulator.caCertPem === undefined ? {} : { caCertPem: simulator.caCertPem }), insecureSkipVerify: false },
  };
}

/** A v3 client that trusts the simulator's CA; `overrides` replace any option. */
export function clientFor(simulator: PrismSimulator, overrides: Partial<PrismClientOptions> = {}): PrismClient {
  return new PrismClient({ ...connectionTo(simulator), ...overrides });
}

/** A v4 client that trusts the simulator's CA; `overrides` replace any option. */
export function v4ClientFor(simulator: PrismSimulator, overrides: Partial<PrismClientOptions> = {}): PrismV4Client {
  return new PrismV4Client({ ...connectionTo(simulator), ...overrides });
}

/** Builds desired VMs on the simulator's inventory: its first cluster by default, names resolved as Prism would. */
export function desiredVmContextFor(simulator: PrismSimulator): DesiredVmContext {
  return {
    defaultCluster: { name: simulator.clusters[0]?.name ?? '' },
    resolveName: (kind, name) => {
      if (kind === 'image_lookup') return imagesMatchingNewestFirst(simulator.images.map(({ uuid, name: imageName, creationTime }) => ({ uuid, name: imageName, createTime: creationTime })), name);
      const entities = {
        cluster: simulator.clusters,
        image: simulator.images,
        subnet: simulator.subnets,
        storage_container: simulator.clusters.flatMap((cluster) => cluster.storageContainers ?? []),
        project: simulator.projects,
      }[kind];
      return entities.filter((entity) => entity.name === name).map((entity) => entity.uuid);
    },
  };
}

/**
 * A `sleep` for the client that records each wait it is asked for and then yields only briefly, so tests can assert
 * how long the client chose to wait without waiting that long or reading a clock.
 */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
      await sleep(1);
    },
  };
}

/** How many requests to `endpoint` the simulator saw, in total or with one outcome. */
export function requestsTo(simulator: PrismSimulator, method: string, endpoint: PrismEndpoint, outcome?: RequestOutcome): number {
  return simulator
    .inspect()
    .requests.filter((r) => r.method === method && r.endpoint === endpoint && (outcome === undefined || r.outcome === outcome))
    .reduce((sum, r) => sum + r.count, 0);
}

/** The outcomes the simulator recorded for `endpoint`, e.g. `{ 429: 1, 200: 1 }`. */
export function outcomesOf(simulator: PrismSimulator, method: string, endpoint: PrismEndpoint): Record<string, number> {
  const outcomes: Record<string, number> = {};
  for (const r of simulator.inspect().requests) {
    if (r.method === method && r.endpoint === endpoint) outcomes[String(r.outcome)] = (outcomes[String(r.outcome)] ?? 0) + r.count;
  }
  return outcomes;
}

/**
 * The endpoints the simulator saw requests to, split by API: v3 (below /api/nutanix/v3, named by their path there) and
 * v4 (named by their full path), and how many requests went to paths it does not serve (a v3 path on a v4-only
 * simulator, or the other way round).
 */
export function requestsByApi(simulator: PrismSimulator): { v3: string[]; v4: string[]; unknown: number } {
  const v3 = new Set<string>();
  const v4 = new Set<string>();
  let unknown = 0;
  for (const { endpoint, count } of simulator.inspect().requests) {
    if (endpoint === 'unknown') unknown += count;
    else if (endpoint.split(' ')[1]?.startsWith('/api/') === true) v4.add(endpoint);
    else v3.add(endpoint);
  }
  return { v3: [...v3].sort(), v4: [...v4].sort(), unknown };
}
