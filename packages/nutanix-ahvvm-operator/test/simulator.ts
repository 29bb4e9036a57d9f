// The real Prism Central simulator over TLS, and PrismClients pointed at it, for the client and update-flow tests.

import { setTimeout as sleep } from 'node:timers/promises';
import { startPrismSimulator, type PrismEndpoint, type PrismSimulator, type PrismSimulatorOptions, type RequestOutcome } from '@k8s-operators/prism-simulator';
import { PrismCredentials } from '../src/config/prism-credentials.ts';
import { PrismClient, type PrismClientOptions } from '../src/prism/prism-client.ts';

/** Short tasks keep the tests fast. */
export const FAST_TIMINGS = { createMs: 15, updateMs: 15, deleteMs: 15, learnedIpMs: 0 };

export function startSimulator(options: PrismSimulatorOptions = {}): Promise<PrismSimulator> {
  return startPrismSimulator({ tls: true, ...options, timings: { ...FAST_TIMINGS, ...options.timings } });
}

/** A client that trusts the simulator's CA; `overrides` replace any option. */
export function clientFor(simulator: PrismSimulator, overrides: Partial<PrismClientOptions> = {}): PrismClient {
  return new PrismClient({
    origin: simulator.url,
    credentials: new PrismCredentials(simulator.username, simulator.password),
    tls: { ...(simulator.caCertPem === undefined ? {} : { caCertPem: simulator.caCertPem }), insecureSkipVerify: false },
    ...overrides,
  });
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
