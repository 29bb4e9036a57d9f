// Simulators for the HTTP-level tests: one shared by the tests of a describe block, or one of a test's own.

import { afterAll, beforeAll, onTestFinished } from 'vitest';
import type { PrismSimulator, PrismSimulatorOptions } from '../src/index.ts';
import { PrismTestClient, startFastSimulator } from './prism-client.ts';

/** What a describe block reads its simulator and client from; both exist once its beforeAll hooks run. */
export interface SimulatorFixture<Client> {
  readonly simulator: PrismSimulator;
  readonly client: Client;
}

/**
 * Starts one fast simulator for the enclosing describe block (beforeAll) and stops it after the block (afterAll), so
 * its tests share one server and its state, and no server outlives the block. Call it in the describe body; read
 * `simulator` and `client` inside tests and hooks, which run after the simulator has started. `makeClient` builds the
 * client (a v3 PrismTestClient unless given), e.g. `(simulator) => new V4TestClient(simulator)`. A block that needs
 * more setup (VMs, say) registers its own beforeAll after this call: vitest runs them in that order.
 */
export function useFastSimulator(options?: PrismSimulatorOptions): SimulatorFixture<PrismTestClient>;
export function useFastSimulator<Client>(options: PrismSimulatorOptions, makeClient: (simulator: PrismSimulator) => Client): SimulatorFixture<Client>;
export function useFastSimulator<Client>(
  options: PrismSimulatorOptions = {},
  makeClient: (simulator: PrismSimulator) => Client | PrismTestClient = (simulator) => new PrismTestClient(simulator),
): SimulatorFixture<Client | PrismTestClient> {
  let started: { simulator: PrismSimulator; client: Client | PrismTestClient } | undefined;
  beforeAll(async () => {
    const simulator = await startFastSimulator(options);
    started = { simulator, client: makeClient(simulator) };
  });
  afterAll(() => started?.simulator.stop());
  const get = (): NonNullable<typeof started> => {
    if (!started) throw new Error('useFastSimulator: the simulator starts in beforeAll; use it inside a test or hook');
    return started;
  };
  return {
    get simulator() { return get().simulator; },
    get client() { return get().client; },
  };
}

/**
 * Starts a fast simulator of the calling test's own, for a test whose settings (slow timings, a clock, the edit-conflict
 * mode) or state no other test may share; it stops when the test ends, passed or failed.
 */
export async function startSimulatorForTest(options: PrismSimulatorOptions = {}): Promise<SimulatorFixture<PrismTestClient>> {
  const simulator = await startFastSimulator(options);
  onTestFinished(() => simulator.stop());
  return { simulator, client: new PrismTestClient(simulator) };
}
