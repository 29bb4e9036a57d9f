// v3 and v4 are two views of one Prism Central: a VM made through one is seen, changed and deleted through the
// other. And the v4 endpoints meet the same fault injection as v3, with v4-shaped errors, where NTNX-Request-Id is
// what makes a retried create safe.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VMM_VMS_PATH, type PrismSimulator } from '../src/index.ts';
import { PrismTestClient, startFastSimulator, type VmJson } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage, v4VmBody, type V4ListJson } from './v4-client.ts';

describe('one store behind v3 and v4', () => {
  let simulator: PrismSimulator;
  let v3: PrismTestClient;
  let v4: V4TestClient;

  beforeAll(async () => {
    simulator = await startFastSimulator();
    v3 = new PrismTestClient(simulator);
    v4 = new V4TestClient(simulator);
  });
  afterAll(() => simulator.stop());

  it('shows a VM created over v4 to v3, with the same uuid, resources and categories', async () => {
    const extId = await v4.createReadyVm(v4VmBody(simulator, 'made-by-v4'));
    const vm = await v3.getVm(extId);
    expect(vm.spec).toMatchObject({ name: 'made-by-v4', resources: { num_sockets: 1, num_vcpus_per_socket: 2, memory_size_mib: 2048, power_state: 'OFF' } });
    expect(vm.spec.resources.disk_list[0]).toMatchObject({ disk_size_mib: 20 * 1024, data_source_reference: { kind: 'image', uuid: simulator.images[0]?.uuid } });
    const v4Vm = (await v4.getVm(extId)).vm;
    expect(vm.spec.resources.nic_list[0]?.mac_address).toBe(v4Vm.nics[0]?.backingInfo.macAddress);
    expect(vm.spec.resources.nic_list[0]?.ip_endpoint_list[0]?.ip).toBe(v4Vm.nics[0]?.networkInfo.ipv4Config.ipAddress?.value);
  });

  it('shows a VM created over v3 to v4, listed and filtered, and lets v4 delete it', async () => {
    const created: VmJson = await v3.createReadyVm({ name: 'made-by-v3', resources: { num_sockets: 2, memory_size_mib: 1024 } });
    const extId = created.metadata.uuid;
    const listed = (await v4.request('GET', `${VMM_VMS_PATH}?$filter=${encodeURIComponent("name eq 'made-by-v3'")}`)).json as V4ListJson;
    expect(listed.data?.map((vm) => vm.extId)).toEqual([extId]);
    expect((await v4.getVm(extId)).vm).toMatchObject({ numSockets: 2, memorySizeBytes: 1024 ** 3 });
    expect((await v4.writeWithEtag('DELETE', `${VMM_VMS_PATH}/${extId}`, extId)).status).toBe('SUCCEEDED');
    expect((await v3.request('GET', `/vms/${extId}`)).status).toBe(404);
  });

  it('moves the ETag when v3 changes the VM, and the spec_version when v4 does', async () => {
    const extId = await v4.createReadyVm(v4VmBody(simulator, 'both-ways'));
    const { etag } = await v4.getVm(extId);
    expect((await v3.updateVm(extId, (spec) => { spec.resources.memory_size_mib = 4096; })).status).toBe('SUCCEEDED');
    const afterV3 = await v4.getVm(extId);
    expect(afterV3.vm.memorySizeBytes).toBe(4 * 1024 ** 3);
    expect(afterV3.etag).not.toBe(etag);
    expect((await v4.request('PUT', `${VMM_VMS_PATH}/${extId}`, afterV3.vm, { ifMatch: etag })).status).toBe(412);

    const before = (await v3.getVm(extId)).metadata.spec_version;
    expect((await v4.writeWithEtag('POST', `${VMM_VMS_PATH}/${extId}/$actions/power-on`, extId)).status).toBe('SUCCEEDED');
    const afterV4 = await v3.getVm(extId);
    expect(afterV4.metadata.spec_version).toBe(before + 1);
    expect(afterV4.status.resources?.power_state).toBe('ON');
  });
});

describe('fault injection on the v4 endpoints', () => {
  const prism = useFastSimulator({}, (simulator) => new V4TestClient(simulator));
  afterEach(() => { prism.simulator.faults.clear(); });

  it('answers an injected 5xx and a 429 with v4 error bodies (429 with Retry-After and RATE_LIMIT_EXCEEDED)', async () => {
    prism.simulator.faults.add({ kind: 'error', endpoint: `GET ${VMM_VMS_PATH}`, status: 503, times: 1 });
    const failed = await prism.client.request('GET', VMM_VMS_PATH);
    expect(failed.status).toBe(503);
    expect(firstAppMessage(failed)).toMatchObject({ $objectType: 'vmm.v4.error.AppMessage', errorGroup: 'INTERNAL_ERROR' });

    prism.simulator.faults.add({ kind: 'rate-limit', endpoint: `GET ${VMM_VMS_PATH}`, retryAfterSeconds: 2, times: 1 });
    const limited = await prism.client.request('GET', VMM_VMS_PATH);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(firstAppMessage(limited)).toMatchObject({ code: 'PLAT-10003', errorGroup: 'RATE_LIMIT_EXCEEDED' });
    expect((await prism.client.request('GET', VMM_VMS_PATH)).status).toBe(200);
  });

  it('makes a retried create safe: a reply lost after the VM was made, retried with the same NTNX-Request-Id, gives the same task', async () => {
    const requestId = '0f3a9f2c-8d7e-4c61-9b1a-2e4d6c8a0b13';
    const body = v4VmBody(prism.simulator, 'lost-reply');
    prism.simulator.faults.add({ kind: 'drop', endpoint: `POST ${VMM_VMS_PATH}`, phase: 'after', times: 1 });
    await expect(prism.client.request('POST', VMM_VMS_PATH, body, { requestId })).rejects.toThrow();
    const retried = await prism.client.createVm(body, { requestId });
    expect((await prism.client.waitForTask(retried.taskExtId)).status).toBe('SUCCEEDED');
    expect(prism.simulator.inspect().vms.filter((vm) => vm.name === 'lost-reply')).toHaveLength(1);
    expect(prism.simulator.inspect().createRequests).toBe(2);

    // A 5xx after the create was handled, retried the same way, is just as safe.
    prism.simulator.faults.add({ kind: 'error', endpoint: `POST ${VMM_VMS_PATH}`, phase: 'after', status: 503, times: 1 });
    const otherId = '0f3a9f2c-8d7e-4c61-9b1a-2e4d6c8a0b14';
    expect((await prism.client.request('POST', VMM_VMS_PATH, v4VmBody(prism.simulator, 'lost-503'), { requestId: otherId })).status).toBe(503);
    await prism.client.createVm(v4VmBody(prism.simulator, 'lost-503'), { requestId: otherId });
    expect(prism.simulator.inspect().vms.filter((vm) => vm.name === 'lost-503')).toHaveLength(1);
  });

  it('fails and slows v4 tasks as it does v3 tasks, and a failed create leaves no VM', async () => {
    prism.simulator.faults.add({ kind: 'task-failure', operation: 'create', errorCode: 'INTERNAL_ERROR', errorDetail: 'INTERNAL_ERROR: ErrorCode: 9', times: 1 });
    const { taskExtId } = await prism.client.createVm(v4VmBody(prism.simulator, 'doomed'));
    const task = await prism.client.waitForTask(taskExtId);
    expect(task).toMatchObject({ status: 'FAILED', legacyErrorMessage: 'INTERNAL_ERROR: ErrorCode: 9', errorMessages: [{ errorGroup: 'INTERNAL_ERROR' }] });
    expect(prism.simulator.inspect().vms.filter((vm) => vm.name === 'doomed')).toHaveLength(0);

    prism.simulator.faults.add({ kind: 'slow-task', operation: 'update', extraMs: 150, times: 1 });
    const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'slow-power'));
    const started = performance.now();
    expect((await prism.client.writeWithEtag('POST', `${VMM_VMS_PATH}/${extId}/$actions/power-on`, extId)).status).toBe('SUCCEEDED');
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('accepts v4 endpoints in fault rules set over the admin API, and refuses unknown ones', async () => {
    const add = (rule: unknown): Promise<Response> => fetch(`${prism.simulator.url}/__sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
    expect((await add({ kind: 'error', endpoint: `POST ${VMM_VMS_PATH}/{extId}/$actions/power-cycle`, status: 500 })).status).toBe(201);
    expect((await add({ kind: 'error', endpoint: 'POST /api/vmm/v4.2/ahv/config/vms/{extId}/$actions/explode' })).status).toBe(400);
  });
});
