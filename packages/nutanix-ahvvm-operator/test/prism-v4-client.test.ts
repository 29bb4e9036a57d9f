// The v4 Prism client against the real simulator's v4 API over verified TLS: the VM lifecycle with ETag / If-Match,
// NTNX-Request-Id making a retried or repeated create safe, paging by name, and v4 errors as typed errors.

import { randomUUID } from 'node:crypto';
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismApiError } from '../src/prism/prism-errors.ts';
import { V4_LIST_LIMIT, isStaleEtag, vmExtIdOf, type PrismV4Client, type PrismV4VmInput } from '../src/prism/v4/prism-v4-client.ts';
import { recordingSleep, startSimulator, v4ClientFor } from './simulator.ts';

const VMS = 'POST /api/vmm/v4.2/ahv/config/vms';

function minimalVm(simulator: PrismSimulator, name: string): PrismV4VmInput {
  return { name, numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: simulator.clusters[0]?.uuid ?? '' } };
}

describe('PrismV4Client', () => {
  let simulator: PrismSimulator;
  let client: PrismV4Client;
  const waits = recordingSleep();

  beforeAll(async () => {
    simulator = await startSimulator();
    client = v4ClientFor(simulator, { sleep: waits.sleep });
  });
  afterAll(async () => {
    await client.close();
    await simulator.stop();
  });

  async function createReady(name: string): Promise<string> {
    const taskExtId = await client.createVm(minimalVm(simulator, name), { requestId: randomUUID() });
    const task = await client.waitForTask(taskExtId, { operation: 'create', pollIntervalMs: 10 });
    expect(task.status).toBe('SUCCEEDED');
    return vmExtIdOf(task) ?? '';
  }

  it('sees that the Prism Central serves v4', async () => {
    expect(await client.servesV4()).toBe(true);
  });

  it('creates a VM, learns its extId from the task, and reads it back with its ETag', async () => {
    const extId = await createReady('v4-web-01');
    expect(extId).toMatch(/^[0-9a-f-]{36}$/);
    const read = await client.getVm(extId);
    expect(read?.vm).toMatchObject({ extId, name: 'v4-web-01', numSockets: 1, memorySizeBytes: 1024 ** 3, powerState: 'OFF' });
    expect(read?.etag).toMatch(/\S/);
    expect(await client.getVm(randomUUID())).toBeUndefined();
  });

  it('answers a create repeated with its NTNX-Request-Id with the first task, and makes one VM', async () => {
    const requestId = randomUUID();
    const first = await client.createVm(minimalVm(simulator, 'v4-once'), { requestId });
    const again = await client.createVm(minimalVm(simulator, 'v4-once'), { requestId });
    expect(again).toBe(first);
    await client.waitForTask(first, { operation: 'create', pollIntervalMs: 10 });
    expect(simulator.inspect().vms.filter((vm) => vm.name === 'v4-once')).toHaveLength(1);
  });

  it('retries a create whose answer was lost with the same NTNX-Request-Id: one VM, the first task', async () => {
    simulator.faults.add({ kind: 'drop', endpoint: VMS, phase: 'after', times: 1 });
    const before = simulator.inspect().createRequests;
    const taskExtId = await client.createVm(minimalVm(simulator, 'v4-lost-answer'), { requestId: randomUUID() });
    expect(simulator.inspect().createRequests - before).toBe(2);
    const task = await client.waitForTask(taskExtId, { operation: 'create', pollIntervalMs: 10 });
    expect(task.status).toBe('SUCCEEDED');
    expect(simulator.inspect().vms.filter((vm) => vm.name === 'v4-lost-answer')).toHaveLength(1);
  });

  it('lists VMs by exact name over every page, quotes included', async () => {
    const name = "v4-o'many";
    await Promise.all(Array.from({ length: V4_LIST_LIMIT + 2 }, () => createReady(name)));
    await createReady("v4-o'many-not");
    const found = await client.listVmsByName(name);
    expect(found).toHaveLength(V4_LIST_LIMIT + 2);
    expect(new Set(found.map((vm) => vm.extId)).size).toBe(V4_LIST_LIMIT + 2);
    expect(await client.listVmsByName('v4-nobody')).toEqual([]);
  });

  it('updates with If-Match, and a stale ETag is a 412 the caller recognises', async () => {
    const extId = await createReady('v4-update');
    const read = await client.getVm(extId);
    if (!read) throw new Error('VM missing');
    const task = await client.waitForTask(await client.updateVm(extId, { ...read.vm, numSockets: 2 }, read.etag), { operation: 'update', pollIntervalMs: 10 });
    expect(task.status).toBe('SUCCEEDED');
    expect((await client.getVm(extId))?.vm.numSockets).toBe(2);

    const stale = await client.updateVm(extId, { ...read.vm, numSockets: 3 }, read.etag).catch((error: unknown) => error);
    expect(isStaleEtag(stale)).toBe(true);
    expect(stale).toBeInstanceOf(PrismApiError);
    expect(stale).toMatchObject({ status: 412, reason: 'INVALID_ETAG_HEADER' });
  });

  it('powers a VM on, cycles it and powers it off, each with the current ETag', async () => {
    const extId = await createReady('v4-power');
    for (const [action, expected] of [['power-on', 'ON'], ['power-cycle', 'ON'], ['power-off', 'OFF']] as const) {
      const read = await client.getVm(extId);
      const task = await client.waitForTask(await client.powerAction(extId, action, read?.etag ?? ''), { operation: action, pollIntervalMs: 10 });
      expect(task.status, action).toBe('SUCCEEDED');
      expect((await client.getVm(extId))?.vm.powerState, action).toBe(expected);
    }
  });

  it('deletes a VM with its ETag; a VM already gone is no task', async () => {
    const extId = await createReady('v4-delete');
    const read = await client.getVm(extId);
    const task = await client.waitForTask((await client.deleteVm(extId, read?.etag ?? '')) ?? '', { operation: 'delete', pollIntervalMs: 10 });
    expect(task).toMatchObject({ status: 'SUCCEEDED' });
    expect(vmExtIdOf(task)).toBe(extId);
    expect(await client.getVm(extId)).toBeUndefined();
    expect(await client.deleteVm(extId, read?.etag ?? '')).toBeUndefined();
  });

  it('reports a failed task with its v4 error messages, and v4 error bodies as typed errors', async () => {
    simulator.faults.add({ kind: 'task-failure', operation: 'create', times: 1 });
    const task = await client.waitForTask(await client.createVm(minimalVm(simulator, 'v4-doomed'), { requestId: randomUUID() }), { operation: 'create', pollIntervalMs: 10 });
    expect(task).toMatchObject({ status: 'FAILED', errorMessages: [{ errorGroup: 'INTERNAL_ERROR' }], legacyErrorMessage: 'INTERNAL_ERROR: ErrorCode: 9' });

    const refused = await client.createVm({ ...minimalVm(simulator, 'v4-bad'), numSockets: -1 }, { requestId: randomUUID() }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, reason: 'INVALID_ARGUMENT' });
  });

  it('waits out a 429 with its Retry-After and then succeeds', async () => {
    simulator.faults.add({ kind: 'rate-limit', endpoint: 'GET /api/vmm/v4.2/ahv/config/vms/{extId}', retryAfterSeconds: 3, times: 1 });
    const extId = await createReady('v4-rate-limited');
    waits.waits.length = 0;
    expect((await client.getVm(extId))?.vm.name).toBe('v4-rate-limited');
    expect(waits.waits).toEqual([3000]);
  });
});
