import { beforeAll, describe, expect, it } from 'vitest';
import { firstMessage, type ListJson } from './prism-client.ts';
import { startSimulatorForTest, useFastSimulator } from './use-simulator.ts';

describe('POST /vms/list', () => {
  const prism = useFastSimulator();
  beforeAll(async () => {
    const names = [...Array.from({ length: 22 }, (_, i) => `bulk-${String(i).padStart(2, '0')}`), 'web', 'web', 'web-1'];
    for (const name of names) await prism.client.createReadyVm({ name, resources: {} });
  });

  const list = async (body: unknown): Promise<ListJson> => {
    const reply = await prism.client.request('POST', '/vms/list', body);
    expect(reply.status).toBe(200);
    return reply.json as ListJson;
  };

  it('returns 20 entities by default, with total_matches', async () => {
    const page = await list({});
    expect(page.api_version).toBe('3.1');
    expect(page.entities).toHaveLength(20);
    expect(page.metadata).toEqual({ kind: 'vm', offset: 0, length: 20, total_matches: 25 });
    expect(page.entities[0]).toMatchObject({ metadata: { kind: 'vm' }, status: { state: 'COMPLETE' } });
  });

  it('pages with offset and length', async () => {
    const second = await list({ kind: 'vm', offset: 20, length: 20 });
    expect(second.metadata).toMatchObject({ offset: 20, length: 5, total_matches: 25 });
    const all = [...(await list({ length: 20 })).entities, ...second.entities].map((vm) => vm.metadata.uuid);
    expect(new Set(all).size).toBe(25);
  });

  it('filters vm_name== exactly and returns every VM of a duplicated name', async () => {
    const page = await list({ filter: 'vm_name==web', sort_attribute: 'name', sort_order: 'ASCENDING' });
    expect(page.metadata).toEqual({ filter: 'vm_name==web', kind: 'vm', sort_attribute: 'name', sort_order: 'ASCENDING', offset: 0, length: 2, total_matches: 2 });
    expect(page.entities.map((vm) => vm.spec.name)).toEqual(['web', 'web']);
    expect(page.entities[0]?.metadata.uuid).not.toBe(page.entities[1]?.metadata.uuid);
  });

  it('sorts by name when asked', async () => {
    const page = await list({ sort_attribute: 'name', sort_order: 'DESCENDING', length: 3 });
    expect(page.entities.map((vm) => vm.spec.name)).toEqual(['web-1', 'web', 'web']);
  });

  it('rejects bad paging with 422 and an unsupported filter with 400', async () => {
    const badLength = await prism.client.request('POST', '/vms/list', { length: 0 });
    expect(badLength.status).toBe(422);
    expect(firstMessage(badLength).details).toEqual({ length: ['0 is less than the minimum of 1'] });
    const badFilter = await prism.client.request('POST', '/vms/list', { filter: 'power_state==ON' });
    expect(badFilter.status).toBe(400);
    expect(firstMessage(badFilter)).toMatchObject({ reason: 'INVALID_REQUEST', details: { filter: [expect.stringMatching(/unsupported filter attribute/) as unknown] } });
  });

  it('accepts a list request without a body', async () => {
    expect((await prism.client.request('POST', '/vms/list')).status).toBe(200);
  });
});

describe('idempotence identifiers', () => {
  const clock = { now: Date.UTC(2024, 11, 10, 16, 52, 24) };
  it('issues, shows and deletes a client identifier’s UUIDs with the recorded shapes', async () => {
    const { client } = await startSimulatorForTest({ now: () => clock.now });
    const created = await client.request('POST', '/idempotence_identifiers', { client_identifier: 'testclient', count: 2, valid_duration_in_minutes: 10 });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({ client_identifier: 'testclient', count: 2, expiration_time: '2024-12-10T17:02:24Z', uuid_list: [expect.any(String), expect.any(String)] });
    const shown = await client.request('GET', '/idempotence_identifiers/testclient');
    expect(shown.json).toEqual(created.json);
    const deleted = await client.request('DELETE', '/idempotence_identifiers/testclient');
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('null');
    expect((await client.request('GET', '/idempotence_identifiers/testclient')).status).toBe(404);
    expect((await client.request('POST', '/idempotence_identifiers', { count: 0 })).status).toBe(422);
  });

  it('creates the VM under the reserved uuid, and a retried POST with it gets 409 instead of a second VM', async () => {
    const { simulator, client } = await startSimulatorForTest({ now: () => clock.now });
    const { uuid_list: [uuid = ''] } = (await client.request('POST', '/idempotence_identifiers', { count: 1 })).json as { uuid_list: string[] };

    const first = await client.createVm({ name: 'exactly-once', resources: {} }, { uuid });
    expect(first.uuid).toBe(uuid);
    const retryWhileCreating = await client.request('POST', '/vms', { metadata: { kind: 'vm', uuid }, spec: { name: 'exactly-once', resources: {} } });
    expect(retryWhileCreating.status).toBe(409);
    expect(retryWhileCreating.json).toMatchObject({ code: 409, state: 'ERROR', kind: 'vm' });
    expect(firstMessage(retryWhileCreating).message).toContain(uuid);

    expect((await client.waitForTask(first.taskUuid)).status).toBe('SUCCEEDED');
    expect((await client.getVm(uuid)).metadata.uuid).toBe(uuid);
    const retryAfter = await client.request('POST', '/vms', { metadata: { kind: 'vm', uuid }, spec: { name: 'exactly-once', resources: {} } });
    expect(retryAfter.status).toBe(409);
    expect(simulator.inspect().vms).toHaveLength(1);
    expect(simulator.inspect().createRequests).toBe(3);
  });

  it('fails the create task for an expired identifier (pc.2022.1+ reports it asynchronously)', async () => {
    const { client } = await startSimulatorForTest({ now: () => clock.now });
    const { uuid_list: [uuid = ''] } = (await client.request('POST', '/idempotence_identifiers', { count: 1, valid_duration_in_minutes: 1 })).json as { uuid_list: string[] };
    clock.now += 60_000;
    const { taskUuid } = await client.createVm({ name: 'too-late', resources: {} }, { uuid });
    expect(await client.waitForTask(taskUuid)).toMatchObject({ status: 'FAILED', error_code: 'INVALID_UUID' });
    expect((await client.request('GET', `/vms/${uuid}`)).status).toBe(404);
  });
});
