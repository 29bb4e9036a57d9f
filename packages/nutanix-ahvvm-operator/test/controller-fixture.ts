// What the controller's integration tests on v3 (ahvvm-controller.test.ts) and v4 (ahvvm-controller-v4.test.ts) share:
// a control plane and a simulator over TLS per test file, operators run in-process on the file's Prism API setting,
// and ways to look at (and change) the VMs on Prism's side. `useControllerFixture` registers the file's hooks; the
// bindings below are set by them (ES modules export live bindings, and each test file has its own module instance).

import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { AhvVm } from '../src/api/ahvvm-resource.ts';
import type { PrismApiSetting } from '../src/vm/prism-vm-api.ts';
import type { PrismClient } from '../src/prism/v3/prism-client.ts';
import type { PrismVm } from '../src/prism/v3/prism-types.ts';
import { withPowerState } from '../src/prism/v3/v3-put-body.ts';
import { OperatorTestEnvironment, prismEnvFor, type OperatorOptions, type RunningOperator } from './operator-harness.ts';
import { clientFor, startSimulator } from './simulator.ts';

/** Task polling fast enough for tests; drift checks left to the tests that want them. */
export const FAST = { taskPollMs: 50, driftCheckMs: 60_000 };

export let env: OperatorTestEnvironment;
export let simulator: PrismSimulator;
/** A v3 client for looking at VMs and changing them behind the operator's back (v3 and v4 share the simulator's VMs). */
export let prism: PrismClient;

let apiSetting: PrismApiSetting = 'auto';
const operators: RunningOperator[] = [];

export function useControllerFixture(setting: PrismApiSetting): void {
  apiSetting = setting;
  beforeAll(async () => {
    [env, simulator] = await Promise.all([OperatorTestEnvironment.start(), startSimulator()]);
    prism = clientFor(simulator);
  });
  afterAll(async () => {
    await Promise.all(operators.map((o) => o.stop()));
    await prism.close();
    await Promise.all([env.stop(), simulator.stop()]);
  });
  afterEach(() => {
    simulator.faults.clear();
  });
}

/** The `prism-central` Secret's keys for the simulator with the file's `PRISM_API_VERSION`; `overrides` win. */
export function prismEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return prismEnvFor(simulator, { PRISM_API_VERSION: apiSetting, ...overrides });
}

export async function operatorFor(namespace: string, options: Partial<OperatorOptions> = {}): Promise<RunningOperator> {
  const operator = await env.runOperator({ env: prismEnv(), namespace, intervals: FAST, ...options });
  operators.push(operator);
  return operator;
}

export async function stopOperator(operator: RunningOperator): Promise<void> {
  operators.splice(operators.indexOf(operator), 1);
  await operator.stop();
}

export function vmsNamed(name: string) {
  return simulator.inspect().vms.filter((vm) => vm.name === name);
}

export function onlyVm(name: string) {
  const vms = vmsNamed(name);
  expect(vms, `VMs named ${name}`).toHaveLength(1);
  const [vm] = vms;
  if (vm === undefined) throw new Error('unreachable');
  return vm;
}

export async function prismVm(uuid: string): Promise<PrismVm> {
  const vm = await prism.getVm(uuid);
  if (vm === undefined) throw new Error(`VM ${uuid} does not exist`);
  return vm;
}

/** Changes a VM behind the operator's back, as someone in Prism's UI would, and waits for the change to be applied. */
export async function changeInPrism(uuid: string, change: (vm: PrismVm) => PrismVm['spec']): Promise<void> {
  const vm = await prismVm(uuid);
  const body = withPowerState(vm, vm.spec.resources.power_state === 'ON' ? 'ON' : 'OFF');
  body.spec = change({ ...vm, spec: body.spec });
  const task = await prism.updateVm(uuid, body);
  expect((await prism.waitForTask(task, { operation: 'update', pollIntervalMs: 10 })).status).toBe('SUCCEEDED');
}

export function uuidOf(avm: AhvVm): string {
  const uuid = avm.status?.uuid;
  if (uuid === undefined) throw new Error(`${avm.metadata.name ?? ''} has no status.uuid`);
  return uuid;
}
