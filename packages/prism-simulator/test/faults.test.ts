import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_BASE_PATH, type LoggedRequest, type PrismSimulator, type SimulatorInspection } from '../src/index.ts';
import { PrismTestClient, firstMessage, startFastSimulator, type ErrorJson, type VmJson } from './prism-client.ts';

let simulator: PrismSimulator | undefined;
afterEach(async () => {
  await simulator?.stop();
  simulator = undefined;
});

async function start(options: Parameters<typeof startFastSimulator>[0] = {}): Promise<{ sim: PrismSimulator; client: PrismTestClient }> {
  simulator = await startFastSimulator(options);
  return { sim: simulator, client: new PrismTestClient(simulator) };
}

const createBody = { metadata: { kind: 'vm' }, spec: { name: 'faulted', resources: {} } };

async function admin(sim: PrismSimulator, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${sim.url}${ADMIN_BASE_PATH}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) as unknown };
}

describe('request faults', () => {
  it('answers an injected error with a 5xx INTERNAL_ERROR body, before the request is handled', async () => {
    const { sim, client } = await start();
    sim.faults.add({ kind: 'error', endpoint: 'POST /vms', status: 503, times: 1 });
    const failed = await client.request('POST', '/vms', createBody);
    expect(failed.status).toBe(503);
    expect(failed.json).toMatchObject({ api_version: '3.1', code: 503, kind: 'vm', state: 'ERROR' });
    expect(firstMessage(failed).reason).toBe('INTERNAL_ERROR');
    expect(sim.inspect().vms).toEqual([]);
    expect((await client.request('POST', '/vms', createBody)).status).toBe(202);
  });

  it('can fail a request after it was handled: the client sees 500 but the VM exists', async () => {
    const { sim, client } = await start();
    sim.faults.add({ kind: 'error', endpoint: 'POST /vms', phase: 'after', times: 1 });
    expect((await client.request('POST', '/vms', createBody)).status).toBe(500);
    expect(sim.inspect().vms).toHaveLength(1);
  });

  it('rate-limits with 429 and Retry-After', async () => {
    const { sim, client } = await start();
    sim.faults.add({ kind: 'rate-limit', retryAfterSeconds: 3, times: 1 });
    const limited = await client.request('GET', '/users/me');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect((limited.json as ErrorJson)).toMatchObject({ code: 429, state: 'ERROR' });
    expect((await client.request('GET', '/users/me')).status).toBe(200);
  });

  it('drops the connection without a response, before or after handling', async () => {
    const { sim, client } = await start();
    sim.faults.add({ kind: 'drop', endpoint: 'POST /vms', times: 1 });
    await expect(client.request('POST', '/vms', createBody)).rejects.toThrow(/fetch failed/);
    expect(sim.inspect().vms).toHaveLength(0);

    sim.faults.add({ kind: 'drop', endpoint: 'POST /vms', phase: 'after', times: 1 });
    await expect(client.request('POST', '/vms', createBody)).rejects.toThrow(/fetch failed/);
    expect(sim.inspect().vms).toHaveLength(1);
    expect(sim.inspect().requests).toContainEqual({ method: 'POST', endpoint: 'POST /vms', outcome: 'dropped', count: 2 });
    expect(sim.inspect().createRequests).toBe(2);
  });

  it('adds latency', async () => {
    const { sim, client } = await start();
    sim.faults.add({ kind: 'latency', latencyMs: 120, endpoint: 'GET /users/me' });
    const started = performance.now();
    expect((await client.request('GET', '/users/me')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('gives the same faults for the same seed', async () => {
    const statuses = async (seed: number): Promise<number[]> => {
      const { client } = await start({ faults: { seed, rules: [{ kind: 'error', probability: 0.5, endpoint: 'GET /users/me' }] } });
      const seen: number[] = [];
      for (let i = 0; i < 30; i += 1) seen.push((await client.request('GET', '/users/me')).status);
      await simulator?.stop();
      simulator = undefined;
      return seen;
    };
    const first = await statuses(2024);
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await statuses(2024)).toEqual(first);
  });

  it('applies rules given at start', async () => {
    const { client } = await start({ faults: { rules: [{ kind: 'rate-limit', endpoint: 'POST /vms/list', times: 1 }] } });
    expect((await client.request('POST', '/vms/list', {})).status).toBe(429);
    expect((await client.request('POST', '/vms/list', {})).status).toBe(200);
  });
});

describe('task faults', () => {
  it('fails the next create task: the VM never appears, the next create works', async () => {
    const { sim, client } = await start();
    sim.faults.add({ kind: 'task-failure', operation: 'create', times: 1 });
    const doomed = await client.createVm({ name: 'doomed', resources: {} });
    expect(await client.waitForTask(doomed.taskUuid)).toMatchObject({ status: 'FAILED', error_code: 'INTERNAL_ERROR', error_detail: 'INTERNAL_ERROR: ErrorCode: 9' });
    expect((await client.request('GET', `/vms/${doomed.uuid}`)).status).toBe(404);
    expect((await client.createReadyVm({ name: 'fine', resources: {} })).status.state).toBe('COMPLETE');
  });

  it('fails an update task: the VM shows ERROR with the message until a later update succeeds', async () => {
    const { sim, client } = await start();
    const vm = await client.createReadyVm({ name: 'flaky', resources: {} });
    sim.faults.add({ kind: 'task-failure', operation: 'update', times: 1, errorCode: '9', errorDetail: 'InternalError: kernel panic' });
    expect((await client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 2; })).status).toBe('FAILED');
    const failed = await client.getVm(vm.metadata.uuid);
    expect(failed.status).toMatchObject({ state: 'ERROR', message_list: [{ reason: 'INTERNAL_ERROR', message: 'error_code: 9\nerror_detail: "InternalError: kernel panic"' }] });
    expect(failed.status.resources?.num_sockets).toBe(1);
    expect((await client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 2; })).status).toBe('SUCCEEDED');
    expect((await client.getVm(vm.metadata.uuid)).status).toMatchObject({ state: 'COMPLETE', resources: { num_sockets: 2 } });
  });

  it('fails a delete task: the VM stays, in ERROR', async () => {
    const { sim, client } = await start();
    const vm = await client.createReadyVm({ name: 'sticky', resources: {} });
    sim.faults.add({ kind: 'task-failure', operation: 'delete', times: 1 });
    const reply = await client.request('DELETE', `/vms/${vm.metadata.uuid}`);
    const taskUuid = (reply.json as { status: { execution_context: { task_uuid: string } } }).status.execution_context.task_uuid;
    expect((await client.waitForTask(taskUuid)).status).toBe('FAILED');
    expect((await client.getVm(vm.metadata.uuid)).status.state).toBe('ERROR');
    expect(sim.inspect().vms).toMatchObject([{ phase: 'ready', state: 'ERROR' }]);
  });

  it('slows tasks down', async () => {
    const { sim, client } = await start();
    sim.faults.add({ kind: 'slow-task', operation: 'create', extraMs: 60_000 });
    const { taskUuid } = await client.createVm({ name: 'slow', resources: {} });
    const task = await client.getTask(taskUuid);
    expect(task.status).toBe('RUNNING');
    expect(task.percentage_complete).toBeLessThan(100);
    expect(sim.faults.list()).toMatchObject([{ kind: 'slow-task', fired: 1 }]);
  });
});

describe('inspection', () => {
  it('counts requests by method, endpoint and code, and the peak of concurrent requests', async () => {
    const { sim, client } = await start();
    const vm: VmJson = await client.createReadyVm({ name: 'counted', resources: {} });
    await new PrismTestClient(sim, 'none').request('GET', `/vms/${vm.metadata.uuid}`);
    // Each request is held long enough that all six are in flight together, even on a slow machine.
    sim.faults.add({ kind: 'latency', latencyMs: 400, endpoint: 'GET /vms/{uuid}' });
    const before = sim.inspect().peakConcurrentRequests;
    await Promise.all(Array.from({ length: 6 }, () => client.request('GET', `/vms/${vm.metadata.uuid}`)));
    const inspection = sim.inspect();
    expect(before).toBe(1);
    expect(inspection.peakConcurrentRequests).toBe(6);
    expect(inspection.inFlightRequests).toBe(0);
    expect(inspection.createRequests).toBe(1);
    expect(inspection.requests).toContainEqual({ method: 'POST', endpoint: 'POST /vms', outcome: 202, count: 1 });
    expect(inspection.requests).toContainEqual({ method: 'GET', endpoint: 'GET /vms/{uuid}', outcome: 200, count: 7 });
    expect(inspection.requests).toContainEqual({ method: 'GET', endpoint: 'GET /vms/{uuid}', outcome: 401, count: 1 });
    expect(inspection.tasks).toEqual({ SUCCEEDED: 1 });
    expect(inspection.vms).toEqual([{
      uuid: vm.metadata.uuid,
      name: 'counted',
      phase: 'ready',
      state: 'COMPLETE',
      powerState: 'OFF',
      specVersion: 0,
      numSockets: 1,
      numVcpusPerSocket: 1,
      memorySizeMib: 1024,
      clusterUuid: sim.clusters[0]?.uuid,
      categories: {},
      categoriesMapping: {},
      lastTaskUuid: vm.status.execution_context.task_uuid[0],
    }]);
  });
});

describe('the admin endpoint', () => {
  it('manages fault rules and serves the inspection and the request log without credentials, outside the Prism path', async () => {
    const { sim, client } = await start();
    const added = await admin(sim, 'POST', '/faults', [{ kind: 'error', endpoint: 'GET /users/me', times: 1 }, { kind: 'latency', latencyMs: 1 }]);
    expect(added.status).toBe(201);
    const { ids } = added.json as { ids: string[] };
    expect(ids).toHaveLength(2);
    expect(((await admin(sim, 'GET', '/faults')).json as { rules: unknown[] }).rules).toHaveLength(2);
    expect((await client.request('GET', '/users/me')).status).toBe(500);

    expect((await admin(sim, 'DELETE', `/faults/${ids[1] ?? ''}`)).status).toBe(204);
    expect((await admin(sim, 'DELETE', `/faults/${ids[1] ?? ''}`)).status).toBe(404);

    const invalid = await admin(sim, 'POST', '/faults', { kind: 'error', status: 200 });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toMatchObject({ details: { 'rules.0.status': ['200 is less than the minimum of 500'] } });

    const replaced = await admin(sim, 'PUT', '/faults', { seed: 7, rules: [{ kind: 'drop', probability: 0.25 }] });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ rules: [{ kind: 'drop', probability: 0.25, fired: 0 }] });
    expect((await admin(sim, 'DELETE', '/faults')).json).toEqual({ rules: [] });

    const inspection = await admin(sim, 'GET', '/inspect');
    expect(inspection.status).toBe(200);
    const counted = (inspection.json as SimulatorInspection).requests;
    expect(counted).toEqual([{ method: 'GET', endpoint: 'GET /users/me', outcome: 500, count: 1 }]);
    // The log names each request's path, which the counts leave out (a path the simulator does not serve is `unknown`).
    await client.request('POST', '/no-such/list', {});
    const logged = await admin(sim, 'GET', '/requests');
    expect(logged.status).toBe(200);
    expect((logged.json as { requests: LoggedRequest[] }).requests.map(({ method, endpoint, path, outcome }) => ({ method, endpoint, path, outcome }))).toEqual([
      { method: 'GET', endpoint: 'GET /users/me', path: '/api/nutanix/v3/users/me', outcome: 500 },
      { method: 'POST', endpoint: 'unknown', path: '/api/nutanix/v3/no-such/list', outcome: 404 },
    ]);
    expect((await admin(sim, 'GET', '/nope')).status).toBe(404);
  });
});
