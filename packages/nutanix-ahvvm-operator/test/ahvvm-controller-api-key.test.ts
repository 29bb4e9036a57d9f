// The operator with a Prism Central service account's API key in the prism-central Secret (PRISM_API_KEY) instead of
// PRISM_USER and PRISM_PASS, against a simulator that refuses every Basic login, so whatever works works by the key:
// a VM made, changed and deleted through v3 and through v4, every request let in by `X-ntnx-api-key`; a wrong key
// reported on every AhvVm after one refused request; a Secret with both kinds of credentials refused with what to
// fix. And the key shows nowhere: not in a status, an Event, or a log line.
//
// How the real clients do it, which this follows: prism-go-client v0.8.1 (1e253ea) `environment/credentials/types.go`
// (`APIKeyCredentialType = "api_key"`, `data.prismCentral.apiKey`), `environment/types/types.go` (`Validate`: an API
// key or a user and password, never both), `internal/client.go` and `v4/v4.go` (the key in `X-ntnx-api-key` in place
// of Basic); CAPX 946f0db (#745 "wire PC SA API key auth method", #747 the `api-key` kustomize overlays).

import { Resources } from '@k8s-operators/controller-core';
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import { PrismAccessGate } from '../src/controller/prism-access-gate.ts';
import type { PrismApiVersion } from '../src/vm/prism-vm-api.ts';
import { FAST } from './controller-fixture.ts';
import { OperatorTestEnvironment, prismEnvFor, type OperatorOptions, type RunningOperator } from './operator-harness.ts';
import { requestsByApi, startSimulator } from './simulator.ts';

/** Shaped like a Prism Central service account's API key; made up. */
const API_KEY = 'ntnx-sa-7Hq2vXk9TzLw4pRm8sYc3bNe6fJd5gUa';

let env: OperatorTestEnvironment;
let simulator: PrismSimulator;
const operators: RunningOperator[] = [];
/** Every log line of every operator of this file, at debug level. */
const logLines: string[] = [];

beforeAll(async () => {
  // No Basic login is accepted: not the simulator's user, not any other.
  [env, simulator] = await Promise.all([OperatorTestEnvironment.start(), startSimulator({ basicAuth: false, apiKeys: [API_KEY] })]);
});
afterAll(async () => {
  await Promise.all(operators.map((o) => o.stop()));
  await Promise.all([env.stop(), simulator.stop()]);
});

/** The Secret's keys with the API key and no PRISM_USER or PRISM_PASS; `overrides` win. */
function keyEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return prismEnvFor(simulator, { PRISM_USER: undefined, PRISM_PASS: undefined, PRISM_API_KEY: API_KEY, ...overrides });
}

async function operatorIn(namespace: string, envVars: Record<string, string | undefined>, options: Partial<OperatorOptions> = {}): Promise<void> {
  await env.createNamespace(namespace);
  operators.push(await env.runOperator({
    env: envVars,
    namespace,
    intervals: FAST,
    logLevel: 'debug',
    logTo: { write: (line) => { logLines.push(line); } },
    ...options,
  }));
}

/** Everything a user can read about the AhvVms of `namespace`: the resources (status included) and their Events. */
async function whatUsersSee(namespace: string): Promise<string> {
  const [avms, events] = await Promise.all([env.kube.list(AhvVmRef, { namespace }), env.kube.list(Resources.Event, { namespace })]);
  return JSON.stringify([avms.items, events.items]);
}

describe.each(['v3', 'v4'] as const)('PRISM_API_KEY on %s', (version: PrismApiVersion) => {
  const NS = `api-key-${version}`;
  beforeAll(() => operatorIn(NS, keyEnv({ PRISM_API_VERSION: version })));

  it('creates, changes and deletes a VM with the key alone, every request let in by X-ntnx-api-key', async () => {
    const before = simulator.requestLog().length;
    const name = `by-key-${version}`;
    await env.apply(NS, name, { memory_size_mib: 1024, disks: [{ image: { uuid: simulator.images[0]?.uuid ?? '' } }] });
    const created = await env.waitForCondition(NS, name, 'Ready', 'True', 'Available');
    const [vm, ...more] = simulator.inspect().vms.filter((v) => v.name === name);
    expect(more).toEqual([]);
    expect(vm).toMatchObject({ uuid: created.status?.uuid, memorySizeMib: 1024 });

    await env.apply(NS, name, { memory_size_mib: 2048, disks: [{ image: { uuid: simulator.images[0]?.uuid ?? '' } }] });
    await env.waitForCondition(NS, name, 'Ready', 'True', 'Available');
    expect(simulator.inspect().vms.find((v) => v.uuid === vm?.uuid)?.memorySizeMib).toBe(2048);

    await env.kube.delete(AhvVmRef, { namespace: NS, name });
    await waitFor(async () => (await env.get(NS, name)) === undefined, { what: `${NS}/${name} to be gone`, intervalMs: 50 });
    expect(simulator.inspect().vms.filter((v) => v.name === name)).toEqual([]);

    const log = simulator.requestLog().slice(before);
    // The create, the update and the delete went to the API under test (the other operator may add its own lines).
    const paths = log.map((entry) => entry.endpoint);
    const expected = version === 'v4'
      ? ['POST /api/vmm/v4.2/ahv/config/vms', 'PUT /api/vmm/v4.2/ahv/config/vms/{extId}', 'DELETE /api/vmm/v4.2/ahv/config/vms/{extId}']
      : ['POST /vms', 'PUT /vms/{uuid}', 'DELETE /vms/{uuid}'];
    expect(paths).toEqual(expect.arrayContaining(expected));
    // Not one refused request, and not one let in by a session: the key went with every request.
    expect(log.filter((entry) => entry.outcome === 401)).toEqual([]);
    expect(new Set(log.map((entry) => entry.authenticatedBy))).toEqual(new Set(['api-key']));
    expect(requestsByApi(simulator).unknown).toBe(0);
  });
});

describe('a wrong PRISM_API_KEY', () => {
  it('is reported on every AhvVm after a single refused request, and shows nowhere', async () => {
    const NS = 'api-key-wrong';
    const wrongKey = `${API_KEY.slice(0, -4)}XXXX`;
    const refusedBefore = simulator.requestLog().filter((entry) => entry.outcome === 401).length;
    // A gate that stays closed for the whole test: no second attempt may happen while it runs.
    await operatorIn(NS, keyEnv({ PRISM_API_KEY: wrongKey }), { gate: new PrismAccessGate({ initialDelayMs: 600_000 }), maxConcurrentReconciles: 1 });
    for (const name of ['a', 'b', 'c']) await env.apply(NS, name, {});
    for (const name of ['a', 'b', 'c']) {
      const avm = await env.waitForCondition(NS, name, 'Ready', 'False', 'AuthenticationFailed');
      expect(avm.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain('Prism Central refused the API key in PRISM_API_KEY (HTTP 401)');
    }
    expect(simulator.requestLog().filter((entry) => entry.outcome === 401).length - refusedBefore).toBe(1);
    await waitFor(async () => (await env.kube.list(Resources.Event, { namespace: NS })).items.length > 0, { what: 'an Event' });

    const seen = await whatUsersSee(NS);
    expect(seen).toContain('refused the API key in PRISM_API_KEY');
    expect(seen).not.toContain(wrongKey);
    expect(seen).not.toContain(API_KEY);
    // The operator logged the refusal (at debug everything is logged), but not the key.
    expect(logLines.join('').includes('refused the API key')).toBe(true);
    expect(logLines.join('')).not.toContain(wrongKey);
  });
});

describe('a Secret with both kinds of credentials, or none', () => {
  it.each([
    ['both', { PRISM_USER: 'admin', PRISM_PASS: 'Nutanix/4u' }, 'PRISM_API_KEY is set beside PRISM_USER and PRISM_PASS: Prism Central takes an API key or a user and password, not both. Remove PRISM_USER and PRISM_PASS from the Secret to use the API key, or PRISM_API_KEY to use the user'],
    ['none', { PRISM_API_KEY: undefined }, 'no credentials for Prism Central: set PRISM_API_KEY to the API key of a Prism Central service account, or PRISM_USER and PRISM_PASS to a user and its password'],
  ])('%s: Ready=False ConfigurationError says what to fix, and no request is made', async (what, overrides, message) => {
    const NS = `api-key-config-${what}`;
    const before = simulator.requestLog().length;
    await operatorIn(NS, keyEnv(overrides));
    await env.apply(NS, 'vm', {});
    const avm = await env.waitForCondition(NS, 'vm', 'Ready', 'False', 'ConfigurationError');
    expect(avm.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(message);
    expect(simulator.requestLog().slice(before).filter((entry) => entry.path.includes('/vms'))).toEqual([]);
    const seen = await whatUsersSee(NS);
    expect(seen).not.toContain(API_KEY);
    expect(seen).not.toContain('Nutanix/4u');
  });
});

it('logged no key in any of the above', () => {
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.join('')).not.toContain(API_KEY);
});
