// For controller tests that compare Prism APIs or Prism Centrals: one control plane for the file, and for each case a
// simulator of its own with an operator on one namespace, all stopped when the file ends.

import type { PrismSimulator, PrismSimulatorOptions } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll } from 'vitest';
import type { PrismApiVersion } from '../src/vm/prism-vm-api.ts';
import { FAST } from './controller-fixture.ts';
import { OperatorTestEnvironment, prismEnvFor, type RunningOperator } from './operator-harness.ts';
import { startSimulator } from './simulator.ts';

export interface OperatorPerSimulator {
  /** The control plane; exists once the file's beforeAll ran. */
  readonly env: OperatorTestEnvironment;
  /** A simulator started with `options`, and an operator speaking `version` to it that watches `namespace`. */
  setUp(namespace: string, options: PrismSimulatorOptions, version: PrismApiVersion): Promise<PrismSimulator>;
}

/** Call in the file's body: registers the beforeAll and afterAll hooks. */
export function useOperatorPerSimulator(): OperatorPerSimulator {
  let env: OperatorTestEnvironment | undefined;
  const simulators: PrismSimulator[] = [];
  const operators: RunningOperator[] = [];
  beforeAll(async () => {
    env = await OperatorTestEnvironment.start();
  });
  afterAll(async () => {
    await Promise.all(operators.map((o) => o.stop()));
    await Promise.all([env?.stop(), ...simulators.map((s) => s.stop())]);
  });
  const started = (): OperatorTestEnvironment => {
    if (env === undefined) throw new Error('useOperatorPerSimulator: the control plane starts in beforeAll; use it inside a test');
    return env;
  };
  return {
    get env() { return started(); },
    async setUp(namespace, options, version) {
      const simulator = await startSimulator(options);
      simulators.push(simulator);
      await started().createNamespace(namespace);
      operators.push(await started().runOperator({ env: prismEnvFor(simulator, { PRISM_API_VERSION: version }), namespace, intervals: FAST }));
      return simulator;
    },
  };
}
