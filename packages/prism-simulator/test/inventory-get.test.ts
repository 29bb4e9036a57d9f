import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGES, DEFAULT_PRISM_CENTRAL, DEFAULT_SUBNETS } from '../src/index.ts';
import { GO_CLUSTER, GO_IMAGE, GO_SUBNET, goDecodeProblems, goError } from './go-client.ts';
import { PrismTestClient, firstMessage, startFastSimulator, type ErrorJson } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';

interface EntityJson {
  api_version?: string;
  metadata: { kind: string; uuid: string; creation_time: string; last_update_time: string; spec_version: number; spec_hash: string; categories: Record<string, string>; categories_mapping: Record<string, string[]> };
  spec: { name: string; cluster_reference?: { kind: string; uuid: string; name?: string }; resources?: Record<string, unknown> };
  status: { name: string; state: string; resources?: { config?: { service_list?: string[] }; [key: string]: unknown }; cluster_reference?: { uuid: string } };
}

interface ListJson {
  metadata: { kind: string; total_matches: number };
  entities: EntityJson[];
}

const UNKNOWN_UUID = '11111111-2222-4333-8444-555555555555';

describe('GET /clusters/{uuid}, /images/{uuid}, /subnets/{uuid}', () => {
  const prism = useFastSimulator({
    now: () => Date.parse('2025-03-04T05:06:07.890Z'),
    images: [...DEFAULT_IMAGES.slice(0, 2), { name: 'older', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e09', sizeBytes: 1024, creationTime: '2024-02-05T21:15:17Z' }],
  });

  const list = async (kind: string): Promise<ListJson> => {
    const reply = await prism.client.request('POST', `/${kind}s/list`, { kind });
    expect(reply.status).toBe(200);
    return reply.json as ListJson;
  };

  it.each([
    ['cluster', () => prism.simulator.clusters[0]?.uuid ?? '', GO_CLUSTER],
    ['image', () => prism.simulator.images[0]?.uuid ?? '', GO_IMAGE],
    ['subnet', () => prism.simulator.subnets[0]?.uuid ?? '', GO_SUBNET],
  ] as const)('answers GET of a %s with the list entity plus api_version, in shapes the Go client decodes', async (kind, uuidOf, goType) => {
    const uuid = uuidOf();
    const reply = await prism.client.request('GET', `/${kind}s/${uuid}`);
    expect(reply.status).toBe(200);
    expect(goError(reply)).toBeUndefined();
    expect(goDecodeProblems(reply.json, goType)).toEqual([]);
    const entity = reply.json as EntityJson;
    const { api_version: apiVersion, ...withoutVersion } = entity;
    expect(apiVersion).toBe('3.1');
    expect((await list(kind)).entities.find((e) => e.metadata.uuid === uuid)).toEqual(withoutVersion);
    expect(entity.metadata).toEqual({
      kind,
      uuid,
      creation_time: '2025-03-04T05:06:07Z',
      last_update_time: '2025-03-04T05:06:07Z',
      spec_version: 0,
      spec_hash: '0'.repeat(50),
      categories: {},
      categories_mapping: {},
      ...(kind === 'cluster' ? {} : { owner_reference: { kind: 'user', uuid: '00000000-0000-0000-0000-000000000000', name: 'admin' } }),
    });
    expect(entity.status).toMatchObject({ name: entity.spec.name, state: 'COMPLETE' });
    // Upper-case UUIDs find the same entity.
    expect((await prism.client.request('GET', `/${kind}s/${uuid.toUpperCase()}`)).json).toEqual(entity);
  });

  it('shows what CAPX and the operator read: service_list, the subnet cluster and type, image size and creation time', async () => {
    const cluster = (await prism.client.request('GET', `/clusters/${prism.simulator.clusters[0]?.uuid ?? ''}`)).json as EntityJson;
    expect(cluster.status.resources?.config?.service_list).toEqual(['AOS']);
    const [ipam] = DEFAULT_SUBNETS;
    const subnet = (await prism.client.request('GET', `/subnets/${ipam?.uuid ?? ''}`)).json as EntityJson;
    expect(subnet.spec).toEqual({
      name: ipam?.name,
      cluster_reference: { kind: 'cluster', name: prism.simulator.clusters[0]?.name, uuid: prism.simulator.clusters[0]?.uuid },
      resources: { subnet_type: 'VLAN', ip_config: { subnet_ip: '10.40.10.0', prefix_length: 24 } },
    });
    const older = (await prism.client.request('GET', '/images/7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e09')).json as EntityJson;
    expect(older.metadata.creation_time).toBe('2024-02-05T21:15:17Z');
    expect(older.status.resources).toMatchObject({ image_type: 'DISK_IMAGE', size_bytes: 1024 });
  });

  it.each(['cluster', 'image', 'subnet'] as const)('answers an unknown %s uuid with 404 ENTITY_NOT_FOUND and that kind', async (kind) => {
    const reply = await prism.client.request('GET', `/${kind}s/${UNKNOWN_UUID}`);
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({
      api_version: '3.1',
      code: 404,
      kind,
      message_list: [{ reason: 'ENTITY_NOT_FOUND', message: `${kind[0]?.toUpperCase() ?? ''}${kind.slice(1)} with uuid ${UNKNOWN_UUID} does not exist.` }],
      state: 'ERROR',
    });
    // What CAPX tests for (`strings.Contains(err, "ENTITY_NOT_FOUND")`).
    expect(goError(reply)).toContain('ENTITY_NOT_FOUND');
    // A uuid of another kind is not found either.
    const other = kind === 'cluster' ? prism.simulator.images[0]?.uuid : prism.simulator.clusters[0]?.uuid;
    expect((await prism.client.request('GET', `/${kind}s/${other ?? ''}`)).status).toBe(404);
  });
});

describe('the Prism Central cluster entity', () => {
  const prism = useFastSimulator();

  it('is listed after the Prism Element clusters with service_list PRISM_CENTRAL, and served by GET', async () => {
    const page = (await prism.client.request('POST', '/clusters/list', {})).json as ListJson;
    expect(page.metadata.total_matches).toBe(prism.simulator.clusters.length + 1);
    expect(page.entities.map((e) => [e.spec.name, e.status.resources?.config?.service_list])).toEqual([
      ...prism.simulator.clusters.map((c) => [c.name, ['AOS']]),
      [DEFAULT_PRISM_CENTRAL.name, ['PRISM_CENTRAL']],
    ]);
    expect(prism.simulator.prismCentral).toEqual(DEFAULT_PRISM_CENTRAL);
    expect(prism.simulator.clusters.map((c) => c.uuid)).not.toContain(DEFAULT_PRISM_CENTRAL.uuid);
    const reply = await prism.client.request('GET', `/clusters/${DEFAULT_PRISM_CENTRAL.uuid}`);
    expect(reply.status).toBe(200);
    expect(goDecodeProblems(reply.json, GO_CLUSTER)).toEqual([]);
    expect((reply.json as EntityJson).status.resources).toEqual({
      config: { timezone: 'UTC', operation_mode: 'NORMAL', redundancy_factor: 2, service_list: ['PRISM_CENTRAL'], is_available: true, cluster_arch: 'X86_64', build: { build_type: 'release', version: 'pc', is_long_term_support: false } },
    });
  });

  it('is found by its name like any cluster, so a client that picks clusters by name alone can pick it', async () => {
    const page = (await prism.client.request('POST', '/clusters/list', { filter: `name==${DEFAULT_PRISM_CENTRAL.name}` })).json as ListJson;
    expect(page.entities.map((e) => e.metadata.uuid)).toEqual([DEFAULT_PRISM_CENTRAL.uuid]);
  });

  it('hosts no VMs: a VM placed on it is accepted and its task fails', async () => {
    const { taskUuid, uuid } = await prism.client.createVm({ name: 'on-pc', cluster_reference: { kind: 'cluster', uuid: DEFAULT_PRISM_CENTRAL.uuid }, resources: {} });
    const task = await prism.client.waitForTask(taskUuid);
    expect(task).toMatchObject({ status: 'FAILED', error_code: 'INVALID_ARGUMENT' });
    expect(task.error_detail).toContain('is the Prism Central');
    expect((await prism.client.request('GET', `/vms/${uuid}`)).status).toBe(404);
  });

  it('takes a name and uuid of its own, which must not clash with the seeds', async () => {
    const custom = await startFastSimulator({ prismCentral: { name: 'pc-a', uuid: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' } });
    try {
      const page = (await new PrismTestClient(custom).request('POST', '/clusters/list', { filter: 'name==pc-a' })).json as ListJson;
      expect(page.entities.map((e) => e.metadata.uuid)).toEqual(['aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee']);
    } finally {
      await custom.stop();
    }
    await expect(startFastSimulator({ prismCentral: { name: 'pc', uuid: prism.simulator.clusters[0]?.uuid ?? '' } })).rejects.toThrow(/must be unique/);
    await expect(startFastSimulator({ prismCentral: { name: 'pc', uuid: 'not-a-uuid' } })).rejects.toThrow(/not a UUID/);
  });
});

describe('the kind of an error', () => {
  const prism = useFastSimulator();

  it.each([
    ['GET', `/clusters/${UNKNOWN_UUID}/hosts`, 'cluster'],
    ['DELETE', `/subnets/${UNKNOWN_UUID}`, 'subnet'],
    ['PUT', `/images/${UNKNOWN_UUID}`, 'image'],
    ['DELETE', '/projects/x', 'project'],
    ['POST', '/categories', 'category'],
    ['GET', '/vms', 'vm'],
  ])('is the kind the path addresses for an endpoint the simulator does not serve (%s %s)', async (method, path, kind) => {
    const reply = await prism.client.request(method, path);
    expect(reply.status).toBe(404);
    expect(reply.json).toMatchObject({ code: 404, kind, state: 'ERROR' });
    expect(firstMessage(reply).reason).toBe('NOT_FOUND');
  });

  it('is left out for a path that addresses no entity', async () => {
    for (const path of ['/api/nutanix/v3', '/api/nutanix/v3/', '/api/nutanix/v2.0/vms', '/']) {
      const response = await fetch(`${prism.simulator.url}${path}`, { headers: { authorization: `Basic ${Buffer.from(`${prism.simulator.username}:${prism.simulator.password}`).toString('base64')}` } });
      expect(response.status).toBe(404);
      const body = (await response.json()) as ErrorJson;
      expect(body).toMatchObject({ api_version: '3.1', code: 404, state: 'ERROR', message_list: [{ reason: 'NOT_FOUND' }] });
      expect('kind' in body).toBe(false);
    }
  });

  it('follows the path in injected faults and in malformed bodies too', async () => {
    const id = prism.simulator.faults.add({ kind: 'error', status: 503 });
    try {
      expect((await prism.client.request('GET', `/subnets/${UNKNOWN_UUID}`)).json).toMatchObject({ code: 503, kind: 'subnet' });
      expect((await prism.client.request('GET', '/projects/x')).json).toMatchObject({ code: 503, kind: 'project' });
    } finally {
      prism.simulator.faults.remove(id);
    }
    const malformed = await prism.client.request('PUT', '/categories/Team', '{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ kind: 'category', message_list: [{ reason: 'INVALID_REQUEST' }] });
  });
});
