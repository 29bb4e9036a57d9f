import { describe, expect, it } from 'vitest';
import { DEFAULT_SUBNETS } from '../src/index.ts';
import { PrismTestClient, firstMessage, startFastSimulator, type AcceptedJson, type NicJson, type VmJson } from './prism-client.ts';
import { startSimulatorForTest, useFastSimulator } from './use-simulator.ts';

const [ipamSubnet] = DEFAULT_SUBNETS;
if (!ipamSubnet) throw new Error('default seeds changed');

const sized = { num_sockets: 2, num_vcpus_per_socket: 2, memory_size_mib: 4096 };

describe('PUT /vms/{uuid}', () => {
  const prism = useFastSimulator();

  async function poweredVm(name: string, powerState: 'ON' | 'OFF'): Promise<VmJson> {
    return prism.client.createReadyVm({ name, resources: { ...sized, power_state: powerState, disk_list: [{ disk_size_mib: 4096 }], nic_list: [{ subnet_reference: { kind: 'subnet', uuid: ipamSubnet?.uuid ?? '' } }] } });
  }

  it('accepts a full spec with 202 and a string task, then bumps spec_version and applies the change', async () => {
    const vm = await poweredVm('resize', 'OFF');
    const reply = await prism.client.putVm(vm.metadata.uuid, (spec) => { spec.resources.memory_size_mib = 8192; spec.description = 'bigger'; });
    expect(reply.status).toBe(202);
    const body = reply.json as AcceptedJson;
    expect(body.status.state).toBe('PENDING');
    expect(typeof body.status.execution_context.task_uuid).toBe('string');
    expect(body.metadata).toMatchObject({ kind: 'vm', uuid: vm.metadata.uuid, spec_version: 0 });

    const task = await prism.client.waitForTask(body.status.execution_context.task_uuid);
    expect(task).toMatchObject({ status: 'SUCCEEDED', operation_type: 'update_vm_intentful', entity_reference_list: [{ kind: 'vm', uuid: vm.metadata.uuid }] });
    const after = await prism.client.getVm(vm.metadata.uuid);
    expect(after.metadata.spec_version).toBe(1);
    expect(after.metadata.entity_version).toBe('2');
    expect(after.status).toMatchObject({ state: 'COMPLETE', execution_context: { task_uuid: [task.uuid] } });
    expect(after.status.resources?.memory_size_mib).toBe(8192);
    // Server-assigned ids survive the round trip.
    expect(after.spec.resources.disk_list[0]?.uuid).toBe(vm.spec.resources.disk_list[0]?.uuid);
    expect(after.spec.resources.nic_list[0]).toMatchObject({
      uuid: vm.spec.resources.nic_list[0]?.uuid,
      mac_address: vm.spec.resources.nic_list[0]?.mac_address,
      ip_endpoint_list: vm.spec.resources.nic_list[0]?.ip_endpoint_list,
    });
  });

  it('keeps the version a GET shows unchanged while the update runs', async () => {
    const slow = await startFastSimulator({ timings: { updateMs: 60_000 } });
    try {
      const slowClient = new PrismTestClient(slow);
      const vm = await slowClient.createReadyVm({ name: 'slow-update', resources: {} });
      const reply = await slowClient.putVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 4; });
      expect(reply.status).toBe(202);
      const during = await slowClient.getVm(vm.metadata.uuid);
      expect(during.metadata.spec_version).toBe(0);
      expect(['PENDING', 'RUNNING']).toContain(during.status.state);
      expect(during.spec.resources.num_sockets).toBe(4);
      expect(during.status.resources?.num_sockets).toBe(1);
      expect(slow.inspect().vms).toMatchObject([{ numSockets: 1, specVersion: 0 }]);
    } finally {
      await slow.stop();
    }
  });

  it.each([
    ['a status section', (body: Record<string, unknown>) => { body.status = { state: 'COMPLETE' }; }, '', "Additional properties are not allowed ('status' was unexpected)"],
    ['no spec_version', (body: Record<string, unknown>) => { body.metadata = { kind: 'vm' }; }, 'metadata', "'spec_version' is a required property"],
    ['a NIC without is_connected', (body: Record<string, unknown>) => { delete ((body.spec as VmJson['spec']).resources.nic_list[0] as Partial<NicJson> | undefined)?.is_connected; }, 'spec.resources.nic_list.0', 'Must specify NIC is_connected during update.'],
  ])('rejects a PUT with %s with 422', async (_what, mutate, path, detail) => {
    const vm = await poweredVm(`invalid-${path}`, 'OFF');
    const body: Record<string, unknown> = { metadata: { kind: 'vm', spec_version: vm.metadata.spec_version }, spec: structuredClone(vm.spec) };
    mutate(body);
    const reply = await prism.client.request('PUT', `/vms/${vm.metadata.uuid}`, body);
    expect(reply.status).toBe(422);
    expect(firstMessage(reply).reason).toBe('INVALID_REQUEST');
    expect(firstMessage(reply).details?.[path]).toContain(detail);
  });

  it('powers on and off through PUT, as tasks that bump spec_version each time', async () => {
    const vm = await poweredVm('power', 'OFF');
    expect((await prism.client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.power_state = 'ON'; })).status).toBe('SUCCEEDED');
    const on = await prism.client.getVm(vm.metadata.uuid);
    expect(on.metadata.spec_version).toBe(1);
    expect(on.status.resources?.power_state).toBe('ON');
    expect((await prism.client.updateVm(vm.metadata.uuid, (spec) => {
      spec.resources.power_state = 'OFF';
      spec.resources.power_state_mechanism = { mechanism: 'ACPI' };
    })).status).toBe('SUCCEEDED');
    const off = await prism.client.getVm(vm.metadata.uuid);
    expect(off.metadata.spec_version).toBe(2);
    expect(off.status.resources?.power_state).toBe('OFF');
    expect(prism.simulator.inspect().vms.find((v) => v.uuid === vm.metadata.uuid)).toMatchObject({ powerState: 'OFF', specVersion: 2 });
  });

  it('hot-adds sockets and memory to a running VM (memory not forced to 1 GiB steps)', async () => {
    const vm = await poweredVm('hot-add', 'ON');
    const task = await prism.client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 4; spec.resources.memory_size_mib = 4096 + 512; });
    expect(task.status).toBe('SUCCEEDED');
    expect((await prism.client.getVm(vm.metadata.uuid)).status.resources).toMatchObject({ num_sockets: 4, memory_size_mib: 4608, power_state: 'ON' });
  });

  it.each([
    ['fewer sockets', { num_sockets: 1 }, /num_sockets 2 -> 1/],
    ['less memory', { memory_size_mib: 2048 }, /memory_size_mib 4096 -> 2048/],
    ['more vCPUs per socket', { num_vcpus_per_socket: 4 }, /num_vcpus_per_socket \(2 -> 4\)/],
    ['fewer vCPUs per socket', { num_vcpus_per_socket: 1 }, /num_vcpus_per_socket \(2 -> 1\)/],
  ])('fails the task for %s on a running VM, leaves the VM in ERROR until a later update succeeds', async (_what, change, detail) => {
    const vm = await poweredVm(`cold-${JSON.stringify(change)}`, 'ON');
    const task = await prism.client.updateVm(vm.metadata.uuid, (spec) => { Object.assign(spec.resources, change); });
    expect(task).toMatchObject({ status: 'FAILED', error_code: '27' });
    expect(task.error_detail).toMatch(/^NotSupported: /);
    expect(task.error_detail).toMatch(detail);

    const failed = await prism.client.getVm(vm.metadata.uuid);
    expect(failed.status.state).toBe('ERROR');
    expect(failed.status.message_list).toEqual([{ reason: 'INTERNAL_ERROR', message: `error_code: 27\nerror_detail: "${task.error_detail ?? ''}"` }]);
    expect(failed.metadata.spec_version).toBe(0);
    expect(failed.spec.resources).toMatchObject(sized);
    expect(failed.status.resources).toMatchObject({ ...sized, power_state: 'ON' });
    expect((await prism.client.getVm(vm.metadata.uuid)).status.state).toBe('ERROR');

    // The same change is fine once the VM is off; that success clears the error.
    expect((await prism.client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.power_state = 'OFF'; })).status).toBe('SUCCEEDED');
    const off = await prism.client.getVm(vm.metadata.uuid);
    expect(off.status.state).toBe('COMPLETE');
    expect(off.status.message_list).toBeUndefined();
    expect((await prism.client.updateVm(vm.metadata.uuid, (spec) => { Object.assign(spec.resources, change); })).status).toBe('SUCCEEDED');
    expect((await prism.client.getVm(vm.metadata.uuid)).status.resources).toMatchObject(change);
  });

  it("refuses to shrink a disk with the real NotSupported error, whatever the power state", async () => {
    const vm = await poweredVm('shrink', 'OFF');
    const task = await prism.client.updateVm(vm.metadata.uuid, (spec) => {
      const [disk] = spec.resources.disk_list;
      if (disk) disk.disk_size_mib = 1024;
    });
    expect(task).toMatchObject({ status: 'FAILED', error_code: '27', error_detail: "NotSupported: Can't shrink disk at scsi.0 from 4096 MiB to 1024 MiB" });
    const after = await prism.client.getVm(vm.metadata.uuid);
    expect(after.status.state).toBe('ERROR');
    expect(after.status.message_list?.[0]?.message).toContain("Can't shrink disk at scsi.0");
  });

  it('treats a PUT as a full replace: a spec without nic_list removes the NICs', async () => {
    const vm = await poweredVm('replace', 'OFF');
    expect((await prism.client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.nic_list = []; })).status).toBe('SUCCEEDED');
    expect((await prism.client.getVm(vm.metadata.uuid)).status.resources?.nic_list).toEqual([]);
  });
});

describe('edit conflicts', () => {
  it('async-task mode (default): a stale spec_version gets 202 and an edit-conflict task failure; the VM is untouched', async () => {
    const { client } = await startSimulatorForTest();
    const vm = await client.createReadyVm({ name: 'async-conflict', resources: {} });
    await client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 2; });

    const stale = await client.request('PUT', `/vms/${vm.metadata.uuid}`, { metadata: { kind: 'vm', spec_version: 0 }, spec: { ...vm.spec, resources: { ...vm.spec.resources, num_sockets: 8 } } });
    expect(stale.status).toBe(202);
    const task = await client.waitForTask((stale.json as AcceptedJson).status.execution_context.task_uuid);
    expect(task).toMatchObject({ status: 'FAILED', error_code: 'CONCURRENT_REQUESTS_NOT_ALLOWED' });
    expect(task.error_detail).toMatch(/Edit conflict/);
    const after = await client.getVm(vm.metadata.uuid);
    expect(after.metadata.spec_version).toBe(1);
    expect(after.status.state).toBe('COMPLETE');
    expect(after.status.resources?.num_sockets).toBe(2);
  });

  it('sync-409 mode: a stale spec_version gets a synchronous 409 with an ERROR body', async () => {
    const { client } = await startSimulatorForTest({ editConflicts: 'sync-409' });
    const vm = await client.createReadyVm({ name: 'sync-conflict', resources: {} });
    const reply = await client.putVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 2; }, { spec_version: 5 });
    expect(reply.status).toBe(409);
    expect(reply.json).toMatchObject({ api_version: '3.1', code: 409, kind: 'vm', state: 'ERROR' });
    expect(firstMessage(reply)).toMatchObject({ reason: 'CONCURRENT_REQUESTS_NOT_ALLOWED', message: expect.stringMatching(/Edit conflict/) as unknown });
    expect((await client.getVm(vm.metadata.uuid)).metadata.spec_version).toBe(0);
  });

  it('refuses a second change while one is in flight, even with the version the GET shows', async () => {
    const { client } = await startSimulatorForTest({ editConflicts: 'sync-409', timings: { updateMs: 60_000 } });
    const vm = await client.createReadyVm({ name: 'in-flight', resources: {} });
    expect((await client.putVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 2; })).status).toBe(202);
    expect((await client.putVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 3; })).status).toBe(409);
  });

  it('deletes without any version check', async () => {
    const { client } = await startSimulatorForTest({ editConflicts: 'sync-409' });
    const vm = await client.createReadyVm({ name: 'no-version-delete', resources: {} });
    await client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.num_sockets = 2; });
    const reply = await client.request('DELETE', `/vms/${vm.metadata.uuid}`);
    expect(reply.status).toBe(202);
    expect((await client.waitForTask((reply.json as AcceptedJson).status.execution_context.task_uuid)).status).toBe('SUCCEEDED');
    expect((await client.request('GET', `/vms/${vm.metadata.uuid}`)).status).toBe(404);
  });
});
