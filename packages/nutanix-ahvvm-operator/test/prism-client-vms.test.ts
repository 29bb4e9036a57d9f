import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAhvVmMetrics, type AhvVmMetrics } from '../src/metrics/ahvvm-metrics.ts';
import { LIST_PAGE_LENGTH, type PrismClient } from '../src/prism/v3/prism-client.ts';
import { PrismApiError, PrismTaskTimeoutError } from '../src/prism/prism-errors.ts';
import type { PrismVmIntent } from '../src/prism/v3/prism-types.ts';
import { clientFor, requestsTo, startSimulator } from './simulator.ts';

function minimalVm(name: string): PrismVmIntent {
  return { metadata: { kind: 'vm' }, spec: { name, resources: { num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024 } } };
}

describe('PrismClient VM operations', () => {
  let simulator: PrismSimulator;
  let client: PrismClient;
  let registry: Registry;
  let metrics: AhvVmMetrics;

  beforeAll(async () => {
    simulator = await startSimulator();
    registry = new Registry();
    metrics = registerAhvVmMetrics(registry);
    client = clientFor(simulator, { metrics });
  });
  afterAll(async () => {
    await client.close();
    await simulator.stop();
  });

  async function createVms(name: string, count: number): Promise<string[]> {
    const uuids = await client.createIdempotenceIdentifiers(count, { clientIdentifier: 'ahvvm-operator-test' });
    const created = await Promise.all(uuids.map((uuid) => client.createVm(minimalVm(name), { idempotenceUuid: uuid })));
    await Promise.all(created.map(({ taskUuid }) => client.waitForTask(taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 })));
    return uuids;
  }

  it('creates a VM with the reserved UUID, waits for its task and reads it back', async () => {
    const [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    const created = await client.createVm(minimalVm('web-01'), { idempotenceUuid: uuid.toUpperCase() });
    expect(created).toMatchObject({ uuid, alreadyExisted: false });
    const task = await client.waitForTask(created.taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 });
    expect(task).toMatchObject({ status: 'SUCCEEDED', entity_reference_list: [{ kind: 'vm', uuid }] });
    const vm = await client.getVm(uuid);
    expect(vm).toMatchObject({ metadata: { uuid, spec_version: 0 }, spec: { name: 'web-01' }, status: { state: 'COMPLETE' } });
  });

  it('returns the existing VM when its idempotence UUID is posted again', async () => {
    const [uuid = ''] = await createVms('web-02', 1);
    const again = await client.createVm(minimalVm('web-02'), { idempotenceUuid: uuid });
    expect(again).toMatchObject({ uuid, alreadyExisted: true });
    expect(simulator.inspect().vms.filter((vm) => vm.name === 'web-02')).toHaveLength(1);
  });

  it('refuses an idempotence UUID whose VM is gone', async () => {
    const [uuid = ''] = await createVms('web-03', 1);
    await client.waitForTask((await client.deleteVm(uuid)) ?? '', { operation: 'delete', pollIntervalMs: 10 });
    const failure = client.createVm(minimalVm('web-03'), { idempotenceUuid: uuid });
    await expect(failure).rejects.toMatchObject({ status: 409, reason: 'ENTITY_ALREADY_EXISTS', message: /reserve a new one/ });
  });

  it('lists every VM of a name over several pages, namesakes included, and nothing else', async () => {
    const count = LIST_PAGE_LENGTH + 25;
    const uuids = await createVms('dup', count);
    await createVms('dup-lookalike', 3);
    const listsBefore = requestsTo(simulator, 'POST', 'POST /vms/list');
    const listed = await client.listVmsByName('dup');
    expect(listed.map((vm) => vm.metadata.uuid).sort()).toEqual([...uuids].sort());
    expect(listed.every((vm) => vm.spec.name === 'dup')).toBe(true);
    expect(requestsTo(simulator, 'POST', 'POST /vms/list') - listsBefore).toBe(2);
    await expect(client.listVmsByName('no-such-vm')).resolves.toEqual([]);
  });

  it('finds names with FIQL-reserved characters', async () => {
    const [uuid] = await createVms('a,b;c(d)=e!f', 1);
    expect((await client.listVmsByName('a,b;c(d)=e!f')).map((vm) => vm.metadata.uuid)).toEqual([uuid]);
  });

  it('deletes a VM, and reports it gone afterwards', async () => {
    const [uuid = ''] = await createVms('doomed', 1);
    const taskUuid = await client.deleteVm(uuid);
    expect(taskUuid).toBeDefined();
    await expect(client.waitForTask(taskUuid ?? '', { operation: 'delete', pollIntervalMs: 10 })).resolves.toMatchObject({ status: 'SUCCEEDED' });
    await expect(client.getVm(uuid)).resolves.toBeUndefined();
    await expect(client.deleteVm(uuid)).resolves.toBeUndefined();
  });

  it('returns a failed task as it is, for the caller to read', async () => {
    simulator.faults.add({ kind: 'task-failure', operation: 'create', times: 1 });
    const [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    const created = await client.createVm(minimalVm('fails'), { idempotenceUuid: uuid });
    const task = await client.waitForTask(created.taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 });
    expect(task).toMatchObject({ status: 'FAILED', error_code: 'INTERNAL_ERROR', error_detail: 'INTERNAL_ERROR: ErrorCode: 9' });
    // pc.2022.1+: a VM whose create failed is not there.
    await expect(client.getVm(uuid)).resolves.toBeUndefined();
  });

  it('gives up waiting for a task after the timeout, naming its last status', async () => {
    simulator.faults.add({ kind: 'slow-task', operation: 'create', extraMs: 60_000, times: 1 });
    const [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    const created = await client.createVm(minimalVm('slow'), { idempotenceUuid: uuid });
    const failure = client.waitForTask(created.taskUuid ?? '', { operation: 'create', timeoutMs: 50, pollIntervalMs: 10 });
    await expect(failure).rejects.toBeInstanceOf(PrismTaskTimeoutError);
    await expect(failure).rejects.toMatchObject({ lastStatus: 'RUNNING' });
  });

  it('knows no unknown task', async () => {
    const unknown = '7a3d0000-0000-4000-8000-000000000000';
    await expect(client.getTask(unknown)).resolves.toBeUndefined();
    const failure = client.waitForTask(unknown, { operation: 'update' });
    await expect(failure).rejects.toBeInstanceOf(PrismApiError);
    await expect(failure).rejects.toMatchObject({ status: 404, reason: 'INVALID_UUID' });
  });

  it('counts requests by templated endpoint and code, their durations, and tasks by operation and result', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/^prism_requests_total\{method="GET",endpoint="\/vms\/\{uuid\}",code="200"\} \d+$/m);
    expect(text).toMatch(/^prism_requests_total\{method="GET",endpoint="\/vms\/\{uuid\}",code="404"\} \d+$/m);
    expect(text).toMatch(/^prism_requests_total\{method="POST",endpoint="\/vms\/list",code="200"\} \d+$/m);
    expect(text).toMatch(/^prism_request_duration_seconds_count\{method="POST",endpoint="\/vms"\} \d+$/m);
    expect(text).toMatch(/^prism_tasks_total\{operation="create",result="succeeded"\} \d+$/m);
    expect(text).toMatch(/^prism_tasks_total\{operation="create",result="failed"\} 1$/m);
    expect(text).not.toMatch(/endpoint="\/vms\/[0-9a-f]{8}-/);
    metrics.vms.set({ state: 'COMPLETE' }, 3);
    expect(await registry.metrics()).toMatch(/^ahvvm_vms\{state="COMPLETE"\} 3$/m);
  });
});
