import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { withRequestSignal } from '@k8s-operators/controller-core';
import { waitFor } from '@k8s-operators/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PrismApiError, PrismRateLimitedError, PrismTransportError } from '../src/prism/prism-errors.ts';
import { taskUuidOf, type PrismClient } from '../src/prism/v3/prism-client.ts';
import type { PrismVmIntent } from '../src/prism/v3/prism-types.ts';
import { clientFor, outcomesOf, recordingSleep, requestsTo, startSimulator } from './simulator.ts';

const UNKNOWN_VM = '0b5c3a10-0000-4000-8000-000000000000';

function minimalVm(name: string): PrismVmIntent {
  return { metadata: { kind: 'vm' }, spec: { name, resources: { num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024 } } };
}

describe('PrismClient retries', () => {
  let simulator: PrismSimulator;
  let client: PrismClient;
  let recorder: ReturnType<typeof recordingSleep>;

  beforeAll(async () => {
    simulator = await startSimulator({ faults: { seed: 7 } });
  });
  afterAll(() => simulator.stop());
  afterEach(async () => {
    simulator.faults.clear();
    await client.close();
  });

  function freshClient(options: Parameters<typeof clientFor>[1] = {}): PrismClient {
    recorder = recordingSleep();
    client = clientFor(simulator, { sleep: recorder.sleep, ...options });
    return client;
  }

  it('ends with the reconcile that sent it: an outage\'s retries stop when the reconcile is aborted', async () => {
    // Found by the soak: during a Prism outage a lost leadership aborted a reconcile waiting between retries, which
    // went on waiting; 5 s later the operator exited. The wait here ends only when aborted, as a long back-off would.
    client = clientFor(simulator, { sleep: (_ms, signal) => new Promise((_resolve, reject) => { signal?.addEventListener('abort', () => { reject(signal.reason as Error); }); }) });
    simulator.faults.add({ kind: 'error', endpoint: 'GET /vms/{uuid}', status: 503 });
    const reconcile = new AbortController();
    const answer = withRequestSignal(reconcile.signal, () => client.getVm(UNKNOWN_VM)).catch((error: unknown) => error);
    await waitFor(() => requestsTo(simulator, 'GET', 'GET /vms/{uuid}') === 1, { what: 'the first request' });
    reconcile.abort(new Error('leader election lost'));
    expect(await answer).toEqual(new Error('leader election lost'));
    expect(requestsTo(simulator, 'GET', 'GET /vms/{uuid}')).toBe(1);
  });

  async function createdVm(name: string): Promise<string> {
    const [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    const created = await client.createVm(minimalVm(name), { idempotenceUuid: uuid });
    await client.waitForTask(created.taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 });
    return uuid;
  }

  it('waits out Retry-After on a 429 and then succeeds', async () => {
    freshClient();
    simulator.faults.add({ kind: 'rate-limit', endpoint: 'GET /vms/{uuid}', retryAfterSeconds: 2, times: 1 });
    await expect(client.getVm(UNKNOWN_VM)).resolves.toBeUndefined();
    expect(outcomesOf(simulator, 'GET', 'GET /vms/{uuid}')).toMatchObject({ 429: 1, 404: 1 });
    expect(recorder.waits).toEqual([2000]);
  });

  it('hands a Retry-After longer than it will wait back to the caller, to requeue', async () => {
    freshClient();
    simulator.faults.add({ kind: 'rate-limit', endpoint: 'POST /vms/list', retryAfterSeconds: 120, times: 1 });
    const failure = client.listVmsByName('x');
    await expect(failure).rejects.toBeInstanceOf(PrismRateLimitedError);
    await expect(failure).rejects.toMatchObject({ status: 429, retryAfterMs: 120_000, reason: 'RATE_LIMIT_EXCEEDED' });
    expect(recorder.waits).toEqual([]);
  });

  it('retries GETs after 5xx answers and dropped connections, with growing backoff', async () => {
    freshClient({ random: () => 0.5 });
    simulator.faults.add({ kind: 'error', endpoint: 'GET /tasks/{uuid}', status: 503, times: 1 });
    simulator.faults.add({ kind: 'drop', endpoint: 'GET /tasks/{uuid}', times: 1 });
    await expect(client.getTask('7a3d0000-0000-4000-8000-000000000000')).resolves.toBeUndefined();
    expect(outcomesOf(simulator, 'GET', 'GET /tasks/{uuid}')).toEqual({ 503: 1, dropped: 1, 404: 1 });
    expect(recorder.waits).toEqual([187.5, 375]);
  });

  it('gives up after its attempts with the last error', async () => {
    freshClient();
    const before = requestsTo(simulator, 'POST', 'POST /vms/list');
    simulator.faults.add({ kind: 'error', endpoint: 'POST /vms/list', status: 500 });
    await expect(client.listVmsByName('x')).rejects.toMatchObject({ name: 'PrismApiError', status: 500, reason: 'INTERNAL_ERROR' });
    expect(requestsTo(simulator, 'POST', 'POST /vms/list') - before).toBe(4);
  });

  it('rides out random faults deterministically (seeded)', async () => {
    freshClient({ retry: { maxAttempts: 8 } });
    simulator.faults.reseed(42);
    simulator.faults.add({ kind: 'error', endpoint: 'POST /vms/list', status: 502, probability: 0.3 });
    simulator.faults.add({ kind: 'drop', endpoint: 'POST /vms/list', probability: 0.2 });
    const before = outcomesOf(simulator, 'POST', 'POST /vms/list');
    for (let i = 0; i < 20; i += 1) await expect(client.listVmsByName('nothing')).resolves.toEqual([]);
    const after = outcomesOf(simulator, 'POST', 'POST /vms/list');
    expect((after['200'] ?? 0) - (before['200'] ?? 0)).toBe(20);
    expect((after['502'] ?? 0) - (before['502'] ?? 0) + (after.dropped ?? 0) - (before.dropped ?? 0)).toBe(recorder.waits.length);
    expect(recorder.waits.length).toBeGreaterThan(0);
  });

  it('never creates two VMs when the answer to POST /vms is lost and the POST is repeated', async () => {
    freshClient();
    const [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    simulator.faults.add({ kind: 'drop', endpoint: 'POST /vms', phase: 'after', times: 1 });
    const createsBefore = simulator.inspect().createRequests;
    const created = await client.createVm(minimalVm('lost-answer'), { idempotenceUuid: uuid });
    expect(created).toMatchObject({ uuid, alreadyExisted: true });
    expect(created.taskUuid).toBeDefined();
    expect(simulator.inspect().createRequests - createsBefore).toBe(2);
    expect(simulator.inspect().vms.filter((vm) => vm.name === 'lost-answer')).toHaveLength(1);
    expect(simulator.inspect().vms.find((vm) => vm.name === 'lost-answer')?.uuid).toBe(uuid);
  });

  it('never creates two VMs when POST /vms fails with a 500 after it was processed', async () => {
    freshClient();
    const [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    simulator.faults.add({ kind: 'error', endpoint: 'POST /vms', phase: 'after', times: 1 });
    const created = await client.createVm(minimalVm('half-failed'), { idempotenceUuid: uuid });
    expect(created).toMatchObject({ uuid, alreadyExisted: true });
    expect(simulator.inspect().vms.filter((vm) => vm.name === 'half-failed')).toHaveLength(1);
  });

  it('does not repeat a PUT whose answer was lost, and says it may have been applied', async () => {
    freshClient();
    const uuid = await createdVm('put-lost');
    const vm = await client.getVm(uuid);
    if (vm === undefined) throw new Error('the VM is gone');
    const puts = requestsTo(simulator, 'PUT', 'PUT /vms/{uuid}');
    simulator.faults.add({ kind: 'drop', endpoint: 'PUT /vms/{uuid}', phase: 'after', times: 1 });
    const body = { metadata: vm.metadata, spec: { ...vm.spec, resources: { ...vm.spec.resources, num_sockets: 2 } } };
    const failure = client.updateVm(uuid, body);
    await expect(failure).rejects.toBeInstanceOf(PrismTransportError);
    await expect(failure).rejects.toMatchObject({ mayHaveBeenProcessed: true });
    expect(requestsTo(simulator, 'PUT', 'PUT /vms/{uuid}') - puts).toBe(1);
    // It was applied: re-reading, which is the caller's recovery, finds the update's task and then the change.
    const reread = await client.getVm(uuid);
    await client.waitForTask(taskUuidOf(reread) ?? '', { operation: 'update', pollIntervalMs: 10 });
    expect((await client.getVm(uuid))?.status.resources?.num_sockets).toBe(2);
  });

  it('repeats a PUT refused with 429, which Prism did not process', async () => {
    freshClient();
    const uuid = await createdVm('put-429');
    const vm = await client.getVm(uuid);
    if (vm === undefined) throw new Error('the VM is gone');
    simulator.faults.add({ kind: 'rate-limit', endpoint: 'PUT /vms/{uuid}', retryAfterSeconds: 1, times: 1 });
    const taskUuid = await client.updateVm(uuid, { metadata: vm.metadata, spec: vm.spec });
    expect(recorder.waits).toEqual([1000]);
    await expect(client.waitForTask(taskUuid, { operation: 'update', pollIntervalMs: 10 })).resolves.toMatchObject({ status: 'SUCCEEDED' });
  });

  it('keeps at most maxConcurrentRequests requests in flight', async () => {
    freshClient();
    const quiet = await startSimulator();
    try {
      const limited = clientFor(quiet, { maxConcurrentRequests: 3 });
      quiet.faults.add({ kind: 'latency', endpoint: 'GET /vms/{uuid}', latencyMs: 30 });
      await Promise.all(Array.from({ length: 12 }, () => limited.getVm(UNKNOWN_VM)));
      const { peakConcurrentRequests } = quiet.inspect();
      expect(peakConcurrentRequests).toBeLessThanOrEqual(3);
      expect(peakConcurrentRequests).toBeGreaterThan(1);
      await limited.close();
    } finally {
      await quiet.stop();
    }
  });

  it('keeps connections alive and reuses them', async () => {
    // With one permit the pool holds one socket; a fresh connection per request would show here as ten.
    freshClient({ maxConcurrentRequests: 1 });
    let connects = 0;
    const onConnected = (message: unknown): void => {
      const { connectParams } = message as { connectParams: { port: string | number } };
      if (Number(connectParams.port) === simulator.port) connects += 1;
    };
    subscribe('undici:client:connected', onConnected);
    try {
      for (let i = 0; i < 10; i += 1) await client.getVm(UNKNOWN_VM);
    } finally {
      unsubscribe('undici:client:connected', onConnected);
    }
    expect(connects).toBe(1);
  });

  it('passes client errors through unretried, with Prism\'s reasons', async () => {
    freshClient();
    const before = requestsTo(simulator, 'POST', 'POST /vms');
    const [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    const failure = client.createVm({ metadata: { kind: 'vm' }, spec: { name: 'x'.repeat(300), resources: {} } }, { idempotenceUuid: uuid });
    await expect(failure).rejects.toBeInstanceOf(PrismApiError);
    await expect(failure).rejects.toMatchObject({ status: 422, reason: 'INVALID_REQUEST' });
    expect(requestsTo(simulator, 'POST', 'POST /vms') - before).toBe(1);
  });
});
