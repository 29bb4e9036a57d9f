import { describe, expect, it } from 'vitest';
import { firstMessage } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';

interface InventoryListJson {
  metadata: { kind: string; offset: number; length: number; total_matches: number; filter?: string };
  entities: { metadata: { kind: string; uuid: string }; spec: { name: string; cluster_reference?: { uuid: string } }; status: { name: string; state: string } }[];
}

describe('POST /clusters/list, /images/list, /subnets/list', () => {
  const prism = useFastSimulator({
    images: [
      { name: 'ubuntu', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e01', sizeBytes: 1024 },
      { name: 'twice', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02', sizeBytes: 1024 },
      { name: 'twice', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e03', sizeBytes: 1024 },
    ],
  });

  const list = async (path: string, body: unknown): Promise<InventoryListJson> => {
    const reply = await prism.client.request('POST', path, body);
    expect(reply.status).toBe(200);
    return reply.json as InventoryListJson;
  };

  it('finds an entity by its exact name, with its uuid in metadata and its name in spec and status', async () => {
    const [cluster] = prism.simulator.clusters;
    const page = await list('/clusters/list', { kind: 'cluster', filter: `name==${cluster?.name ?? ''}` });
    expect(page.metadata).toEqual({ filter: `name==${cluster?.name ?? ''}`, kind: 'cluster', offset: 0, length: 1, total_matches: 1 });
    expect(page.entities[0]).toMatchObject({ metadata: { kind: 'cluster', uuid: cluster?.uuid }, spec: { name: cluster?.name }, status: { name: cluster?.name, state: 'COMPLETE' } });
    expect((await list('/clusters/list', { filter: 'name==sim-cluster' })).entities).toEqual([]);
  });

  it('returns every entity of a duplicated name, and subnets with their cluster', async () => {
    const twice = await list('/images/list', { filter: 'name==twice' });
    expect(twice.entities.map((e) => e.metadata.uuid)).toEqual(['7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02', '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e03']);
    const subnets = await list('/subnets/list', {});
    expect(subnets.metadata.total_matches).toBe(prism.simulator.subnets.length);
    expect(subnets.entities[0]?.spec.cluster_reference?.uuid).toBe(prism.simulator.clusters[0]?.uuid);
  });

  it('pages like POST /vms/list and refuses other selectors and kinds', async () => {
    const page = await list('/images/list', { offset: 1, length: 1 });
    expect(page.metadata).toEqual({ kind: 'image', offset: 1, length: 1, total_matches: 3 });
    const badFilter = await prism.client.request('POST', '/subnets/list', { filter: 'vm_name==x' });
    expect(badFilter.status).toBe(400);
    expect(firstMessage(badFilter)).toMatchObject({ reason: 'INVALID_REQUEST' });
    const badKind = await prism.client.request('POST', '/subnets/list', { kind: 'vm' });
    expect(badKind.status).toBe(422);
    expect(badKind.json).toMatchObject({ kind: 'subnet' });
  });
});
