import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGES, DEFAULT_SUBNETS } from '../src/index.ts';
import { firstMessage, type AcceptedJson, type ErrorJson, type ListJson, type SpecJson } from './prism-client.ts';
import { startSimulatorForTest, useFastSimulator } from './use-simulator.ts';

const [ipamSubnet, dhcpSubnet] = DEFAULT_SUBNETS;
const [image] = DEFAULT_IMAGES;
if (!ipamSubnet || !dhcpSubnet || !image) throw new Error('default seeds changed');

/** The create request recorded against pc.2024.3, pointed at the simulator's seeds. */
function recordedCreateSpec(name = 'test-vm'): SpecJson {
  return {
    description: 'test-vm-description',
    name,
    resources: {
      boot_config: { boot_type: 'UEFI' },
      disk_list: [{ data_source_reference: { kind: 'image', uuid: image?.uuid ?? '' }, disk_size_mib: 8192 }],
      memory_size_mib: 1024,
      nic_list: [{ subnet_reference: { kind: 'subnet', uuid: ipamSubnet?.uuid ?? '' } }],
      num_threads_per_core: 1,
      num_sockets: 1,
    },
  };
}

describe('VM create, read and delete', () => {
  const prism = useFastSimulator();

  it('accepts POST /vms with 202, PENDING and a string task_uuid, echoing the spec', async () => {
    const spec = recordedCreateSpec();
    const reply = await prism.client.request('POST', '/vms', { metadata: { kind: 'vm', spec_version: 1 }, spec });
    expect(reply.status).toBe(202);
    const body = reply.json as AcceptedJson;
    expect(body.api_version).toBe('3.1');
    expect(body.status.state).toBe('PENDING');
    expect(typeof body.status.execution_context.task_uuid).toBe('string');
    expect(body.metadata).toMatchObject({ kind: 'vm', spec_version: 0, use_categories_mapping: false });
    expect(body.metadata.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.spec).toEqual(spec);
    await prism.client.waitForTask(body.status.execution_context.task_uuid);
  });

  it('shows the created VM with server-filled values, OFF, with an ASSIGNED IP from the IPAM subnet', async () => {
    const { uuid, taskUuid } = await prism.client.createVm(recordedCreateSpec('filled'));
    const task = await prism.client.waitForTask(taskUuid);
    expect(task.status).toBe('SUCCEEDED');
    const vm = await prism.client.getVm(uuid);

    expect(vm.api_version).toBe('3.1');
    expect(vm.metadata).toMatchObject({
      kind: 'vm',
      uuid,
      spec_version: 0,
      entity_version: '1',
      spec_hash: '0'.repeat(50),
      categories: {},
      project_reference: { kind: 'project', name: '_internal' },
      owner_reference: { kind: 'user', name: prism.simulator.username },
    });
    expect(vm.metadata.creation_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(vm.status.state).toBe('COMPLETE');
    expect(vm.status.execution_context.task_uuid).toEqual([taskUuid]);

    const clusterReference = { kind: 'cluster', name: prism.simulator.clusters[0]?.name, uuid: prism.simulator.clusters[0]?.uuid };
    expect(vm.spec.cluster_reference).toEqual(clusterReference);
    expect(vm.status.cluster_reference).toEqual(clusterReference);
    expect(vm.spec.resources).toMatchObject({ num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024, power_state: 'OFF', boot_config: { boot_type: 'UEFI' } });
    expect(vm.status.resources).toMatchObject({ power_state: 'OFF', hypervisor_type: 'AHV', bios_uuid: uuid });

    const [disk] = vm.spec.resources.disk_list;
    expect(disk?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(disk).toMatchObject({ disk_size_mib: 8192, disk_size_bytes: 8192 * 1024 * 1024, device_properties: { device_type: 'DISK', disk_address: { adapter_type: 'SCSI', device_index: 0 } } });

    const [nic] = vm.spec.resources.nic_list;
    expect(nic?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(nic?.mac_address).toMatch(/^50:6b:8d(:[0-9a-f]{2}){3}$/);
    expect(nic?.subnet_reference).toEqual({ kind: 'subnet', name: ipamSubnet.name, uuid: ipamSubnet.uuid });
    expect(nic?.ip_endpoint_list).toEqual([{ ip: expect.stringMatching(/^10\.40\.10\.\d+$/) as unknown, type: 'ASSIGNED' }]);
    expect(vm.status.resources?.nic_list[0]?.ip_endpoint_list).toEqual(nic?.ip_endpoint_list);
  });

  it('creates from the minimal documented body: 1 socket, 1 vCPU, 1 GiB, OFF, on the default cluster', async () => {
    const vm = await prism.client.createReadyVm({ name: 'NewVM', resources: {} });
    expect(vm.status.resources).toMatchObject({ num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024, power_state: 'OFF' });
    expect(vm.status.cluster_reference.uuid).toBe(prism.simulator.clusters[0]?.uuid);
  });

  it('reports the finished task with the real fields', async () => {
    const { uuid, taskUuid } = await prism.client.createVm({ name: 'task-fields', resources: {} });
    const task = await prism.client.waitForTask(taskUuid);
    expect(task).toMatchObject({
      uuid: taskUuid,
      status: 'SUCCEEDED',
      percentage_complete: 100,
      operation_type: 'create_vm_intentful',
      progress_message: expect.any(String) as unknown,
      entity_reference_list: [{ kind: 'vm', uuid }],
      cluster_reference: { kind: 'cluster', uuid: prism.simulator.clusters[0]?.uuid },
    });
    expect(task.creation_time).toMatch(/Z$/);
    expect(task.start_time).toMatch(/Z$/);
    expect(task.completion_time).toMatch(/Z$/);
    expect(task.error_code).toBeUndefined();
  });

  it('answers an unknown task with 404 INVALID_UUID', async () => {
    const reply = await prism.client.request('GET', '/tasks/00000000-0000-4000-8000-000000000000');
    expect(reply.status).toBe(404);
    expect(reply.json).toMatchObject({ code: 404, kind: 'task', state: 'ERROR' });
    expect(firstMessage(reply).reason).toBe('INVALID_UUID');
    expect(firstMessage(reply).message).toContain('INVALID_UUID');
  });

  it('deletes with 202 DELETE_PENDING, then answers 404 ENTITY_NOT_FOUND', async () => {
    const vm = await prism.client.createReadyVm({ name: 'doomed', resources: {} });
    const reply = await prism.client.request('DELETE', `/vms/${vm.metadata.uuid}`);
    expect(reply.status).toBe(202);
    const body = reply.json as { status: { state: string; execution_context: { task_uuid: string } } };
    expect(reply.json).toEqual({ status: { state: 'DELETE_PENDING', execution_context: { task_uuid: body.status.execution_context.task_uuid } }, spec: '', api_version: '3.1', metadata: { kind: 'vm' } });
    const task = await prism.client.waitForTask(body.status.execution_context.task_uuid);
    expect(task).toMatchObject({ status: 'SUCCEEDED', operation_type: 'delete_vm_intentful' });

    const gone = await prism.client.request('GET', `/vms/${vm.metadata.uuid}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ api_version: '3.1', code: 404, kind: 'vm', state: 'ERROR' });
    expect(firstMessage(gone).reason).toBe('ENTITY_NOT_FOUND');
    expect((await prism.client.request('DELETE', `/vms/${vm.metadata.uuid}`)).status).toBe(404);
    expect((await prism.client.request('PUT', `/vms/${vm.metadata.uuid}`, { metadata: { kind: 'vm', spec_version: 0 }, spec: vm.spec })).status).toBe(404);
  });

  it('fails the create task for references it does not know, and the VM never appears', async () => {
    const unknown = '0badc0de-0000-4000-8000-000000000000';
    const cases: SpecJson[] = [
      { name: 'bad-image', resources: { disk_list: [{ data_source_reference: { kind: 'image', uuid: unknown } }] } },
      { name: 'bad-subnet', resources: { nic_list: [{ subnet_reference: { kind: 'subnet', uuid: unknown } }] } },
      { name: 'bad-cluster', cluster_reference: { kind: 'cluster', uuid: unknown }, resources: {} },
    ];
    for (const spec of cases) {
      const { uuid, taskUuid } = await prism.client.createVm(spec);
      const task = await prism.client.waitForTask(taskUuid);
      expect(task.status).toBe('FAILED');
      expect(task.error_code).toBe('ENTITY_NOT_FOUND');
      expect(task.error_detail).toContain(unknown);
      expect(task.percentage_complete).toBe(100);
      expect((await prism.client.request('GET', `/vms/${uuid}`)).status).toBe(404);
      const list = (await prism.client.request('POST', '/vms/list', { filter: `vm_name==${spec.name}` })).json as ListJson;
      expect(list.metadata.total_matches).toBe(0);
    }
  });
});

describe('VMs in flight', () => {
  it('shows a VM being created as PENDING/RUNNING, with a RUNNING task below 100%, and does not list it', async () => {
    const { simulator, client } = await startSimulatorForTest({ timings: { createMs: 60_000 } });
    const { uuid, taskUuid } = await client.createVm({ name: 'slow', resources: {} });
    const vm = await client.getVm(uuid);
    expect(['PENDING', 'RUNNING']).toContain(vm.status.state);
    expect(vm.status.resources).toBeUndefined();
    const task = await client.getTask(taskUuid);
    expect(task.status).toBe('RUNNING');
    expect(task.percentage_complete).toBeLessThan(100);
    expect(task.completion_time).toBeUndefined();
    const list = (await client.request('POST', '/vms/list', {})).json as ListJson;
    expect(list.metadata.total_matches).toBe(0);
    expect(simulator.inspect().vms).toMatchObject([{ uuid, phase: 'creating' }]);
  });

  it('queues a delete behind the running create and reports the same task for a repeated DELETE', async () => {
    const { client } = await startSimulatorForTest({ timings: { createMs: 60_000 } });
    const { uuid } = await client.createVm({ name: 'queued', resources: {} });
    const first = (await client.request('DELETE', `/vms/${uuid}`)).json as { status: { execution_context: { task_uuid: string } } };
    const second = (await client.request('DELETE', `/vms/${uuid}`)).json as { status: { execution_context: { task_uuid: string } } };
    expect(second.status.execution_context.task_uuid).toBe(first.status.execution_context.task_uuid);
    const task = await client.getTask(first.status.execution_context.task_uuid);
    expect(task).toMatchObject({ status: 'QUEUED', percentage_complete: 0 });
    expect(task.start_time).toBeUndefined();
    expect((await client.getVm(uuid)).status.state).toBe('DELETE_PENDING');
  });

  it('keeps a VM being deleted visible as DELETE_PENDING until the task completes', async () => {
    const { simulator, client } = await startSimulatorForTest({ timings: { deleteMs: 60_000 } });
    const vm = await client.createReadyVm({ name: 'deleting', resources: {} });
    await client.request('DELETE', `/vms/${vm.metadata.uuid}`);
    expect((await client.getVm(vm.metadata.uuid)).status.state).toBe('DELETE_PENDING');
    expect(simulator.inspect().vms).toMatchObject([{ phase: 'deleting' }]);
  });
});

describe('IP addresses', () => {
  it('shows a LEARNED address on a non-IPAM subnet only while the VM runs', async () => {
    const { client } = await startSimulatorForTest();
    const vm = await client.createReadyVm({ name: 'dhcp', resources: { nic_list: [{ subnet_reference: { kind: 'subnet', uuid: dhcpSubnet.uuid } }] } });
    expect(vm.status.resources?.nic_list[0]?.ip_endpoint_list).toEqual([]);

    expect((await client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.power_state = 'ON'; })).status).toBe('SUCCEEDED');
    const on = await client.getVm(vm.metadata.uuid);
    expect(on.status.resources?.power_state).toBe('ON');
    expect(on.status.resources?.nic_list[0]?.ip_endpoint_list).toEqual([{ ip: expect.stringMatching(/^192\.168\.20\.\d+$/) as unknown, type: 'LEARNED' }]);
    expect(on.spec.resources.nic_list[0]?.ip_endpoint_list).toEqual([]);

    await client.updateVm(vm.metadata.uuid, (spec) => { spec.resources.power_state = 'OFF'; });
    expect((await client.getVm(vm.metadata.uuid)).status.resources?.nic_list[0]?.ip_endpoint_list).toEqual([]);
  });

  it('shows the LEARNED address only after the guest has run for learnedIpMs', async () => {
    const { client } = await startSimulatorForTest({ timings: { learnedIpMs: 60_000 } });
    const vm = await client.createReadyVm({ name: 'booting', resources: { power_state: 'ON', nic_list: [{ subnet_reference: { kind: 'subnet', uuid: dhcpSubnet.uuid } }] } });
    expect(vm.status.resources?.power_state).toBe('ON');
    expect(vm.status.resources?.nic_list[0]?.ip_endpoint_list).toEqual([]);
  });

  it('never hands the same IPAM address to two VMs', async () => {
    const { client } = await startSimulatorForTest();
    const spec = (name: string): SpecJson => ({ name, resources: { nic_list: [{ subnet_reference: { kind: 'subnet', uuid: ipamSubnet.uuid } }] } });
    const vms = await Promise.all(['a', 'b', 'c'].map((name) => client.createReadyVm(spec(name))));
    const ips = vms.map((vm) => vm.spec.resources.nic_list[0]?.ip_endpoint_list[0]?.ip);
    expect(new Set(ips).size).toBe(3);
  });

  it('honours a requested IPAM address and fails the task when it is taken', async () => {
    const { client } = await startSimulatorForTest();
    const withIp: SpecJson = { name: 'fixed', resources: { nic_list: [{ subnet_reference: { kind: 'subnet', uuid: ipamSubnet.uuid }, ip_endpoint_list: [{ ip: '10.40.10.50', type: 'ASSIGNED' }] }] } };
    const vm = await client.createReadyVm(withIp);
    expect(vm.spec.resources.nic_list[0]?.ip_endpoint_list).toEqual([{ ip: '10.40.10.50', type: 'ASSIGNED' }]);
    const { taskUuid } = await client.createVm({ ...withIp, name: 'clash' });
    const task = await client.waitForTask(taskUuid);
    expect(task.status).toBe('FAILED');
    expect(task.error_detail).toContain('10.40.10.50 is already in use');
  });
});

describe('validation', () => {
  const prism = useFastSimulator();

  it.each([
    ['a missing spec.name', { metadata: { kind: 'vm' }, spec: { resources: {} } }, 'spec', "'name' is a required property"],
    ['missing resources', { metadata: { kind: 'vm' }, spec: { name: 'x' } }, 'spec', "'resources' is a required property"],
    ['missing metadata', { spec: { name: 'x', resources: {} } }, '', "'metadata' is a required property"],
    ['a wrong type', { metadata: { kind: 'vm' }, spec: { name: 'x', resources: { num_sockets: 'two' } } }, 'spec.resources.num_sockets', "'two' is not of type 'integer'"],
    ['an unknown power state', { metadata: { kind: 'vm' }, spec: { name: 'x', resources: { power_state: 'PAUSED' } } }, 'spec.resources.power_state', "'PAUSED' is not one of ['ON', 'OFF']"],
    ['a wrong kind', { metadata: { kind: 'image' }, spec: { name: 'x', resources: {} } }, 'metadata.kind', "'image' is not one of ['vm']"],
    ['a status section', { metadata: { kind: 'vm' }, spec: { name: 'x', resources: {} }, status: {} }, '', "Additional properties are not allowed ('status' was unexpected)"],
  ])('rejects %s with 422 INVALID_REQUEST and details', async (_what, body, path, detail) => {
    const reply = await prism.client.request('POST', '/vms', body);
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({ api_version: '3.1', code: 422, kind: 'vm', state: 'ERROR' });
    expect(firstMessage(reply)).toMatchObject({ reason: 'INVALID_REQUEST', message: 'Request could not be processed.' });
    expect(firstMessage(reply).details?.[path]).toContain(detail);
    expect(prism.simulator.inspect().vms).toEqual([]);
  });

  it('accepts metadata.uuid only when it comes from an idempotence identifier', async () => {
    const uuid = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    const { taskUuid } = await prism.client.createVm({ name: 'chosen-uuid', resources: {} }, { uuid });
    const task = await prism.client.waitForTask(taskUuid);
    expect(task).toMatchObject({ status: 'FAILED', error_code: 'INVALID_UUID' });
    expect((await prism.client.request('GET', `/vms/${uuid}`)).status).toBe(404);
    expect(((await prism.client.request('GET', `/vms/${uuid}`)).json as ErrorJson).message_list[0]?.reason).toBe('ENTITY_NOT_FOUND');
  });
});
