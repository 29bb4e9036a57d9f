// Storage containers a disk can be put on, through both APIs: v3 finds them with POST /groups as CAPX v1.7.0 did
// (controllers/helpers.go `ListStorageContainers`: entity_type storage_container, attributes container_name,
// cluster_name, cluster) and puts a disk on one with `storage_config.storage_container_reference` (v3.1 swagger
// `disk_storage_config`); v4 finds them in clustermgmt and uses `backingInfo.storageContainer.extId` (CAPX v1.10.3
// `addStorageConfigAndContainerToVmDisk`). Each cluster has its own containers; the same name may exist on each.

import { describe, expect, it } from 'vitest';
import { CLUSTERMGMT_STORAGE_CONTAINERS_PATH } from '../src/index.ts';
import { goDecodeProblems, goError, goSlice, goStruct } from './go-client.ts';
import { firstMessage } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient } from './v4-client.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const PE2 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a02';
const FAST1 = '5c0e7a10-0000-4000-8000-000000000001';
const DEFAULT1 = '5c0e7a10-0000-4000-8000-000000000002';
const DEFAULT2 = '5c0e7a10-0000-4000-8000-000000000003';

interface GroupsJson {
  entity_type: string;
  filtered_entity_count: number;
  group_results: { entity_results: { entity_id: string; data: { name: string; values: { time: number; values: string[] }[] }[] }[] }[];
}

/** prism-go-client's `GroupsGetEntitiesResponse` (v3/v3_structs.go @1e253ea), which CAPX v1.7.0 decodes the answer into. */
const GO_GROUPS_RESPONSE = goStruct({
  filtered_group_count: 'int',
  group_results: goSlice(goStruct({
    entity_results: goSlice(goStruct({ entity_id: 'string', data: goSlice(goStruct({ name: 'string', values: goSlice(goStruct({ time: 'int', values: goSlice('string') })) })) })),
  })),
});

/** What CAPX v1.7.0 read from each entity: `data[].values[0].values[0]` by attribute name. */
function containersOf(groups: GroupsJson): Record<string, string>[] {
  return (groups.group_results[0]?.entity_results ?? []).map((entity) => ({
    uuid: entity.entity_id,
    ...Object.fromEntries(entity.data.map((field) => [field.name, field.values[0]?.values[0] ?? ''])),
  }));
}

describe('storage containers', () => {
  const prism = useFastSimulator({
    clusters: [
      { name: 'pe-one', uuid: PE1, storageContainers: [{ name: 'default', uuid: DEFAULT1 }, { name: 'fast', uuid: FAST1 }] },
      { name: 'pe-two', uuid: PE2, storageContainers: [{ name: 'default', uuid: DEFAULT2 }] },
    ],
  });
  const capxRequest = { entity_type: 'storage_container', group_member_attributes: [{ attribute: 'container_name' }, { attribute: 'cluster_name' }, { attribute: 'cluster' }] };

  it('v3: POST /groups lists every cluster\'s containers with the attributes CAPX v1.7.0 asks for, filtered by container_name', async () => {
    const all = await prism.client.request('POST', '/groups', capxRequest);
    expect(all.status).toBe(200);
    expect(goError(all)).toBeUndefined();
    expect(goDecodeProblems(all.json, GO_GROUPS_RESPONSE)).toEqual([]);
    expect(all.json).toMatchObject({ entity_type: 'storage_container', filtered_entity_count: 3, filtered_group_count: 1 });
    expect(containersOf(all.json as GroupsJson)).toEqual([
      { uuid: DEFAULT1, container_name: 'default', cluster_name: 'pe-one', cluster: PE1 },
      { uuid: FAST1, container_name: 'fast', cluster_name: 'pe-one', cluster: PE1 },
      { uuid: DEFAULT2, container_name: 'default', cluster_name: 'pe-two', cluster: PE2 },
    ]);
    const named = await prism.client.request('POST', '/groups', { ...capxRequest, filter_criteria: 'container_name==default' });
    expect(containersOf(named.json as GroupsJson).map((c) => c.cluster)).toEqual([PE1, PE2]);
  });

  it('v3: POST /groups refuses entity types and attributes it does not serve, saying which it does', async () => {
    const vms = await prism.client.request('POST', '/groups', { entity_type: 'vm' });
    expect(vms.status).toBe(422);
    expect(vms.json).toMatchObject({ kind: 'group', state: 'ERROR' });
    expect(JSON.stringify(firstMessage(vms).details)).toContain("'vm' is not one of ['storage_container']");
    const attribute = await prism.client.request('POST', '/groups', { entity_type: 'storage_container', group_member_attributes: [{ attribute: 'usage_bytes' }] });
    expect(attribute.status).toBe(422);
    const selector = await prism.client.request('POST', '/groups', { ...capxRequest, filter_criteria: 'cluster_name==pe-one' });
    expect(selector.status).toBe(400);
  });

  it('v3: a disk lands on the container it names, shown with its name; one of another cluster or none fails the task', async () => {
    const onFast = { disk_size_mib: 1024, storage_config: { storage_container_reference: { kind: 'storage_container', uuid: FAST1 } } };
    const vm = await prism.client.createReadyVm({ name: 'on-fast', cluster_reference: { kind: 'cluster', uuid: PE1 }, resources: { disk_list: [onFast, { disk_size_mib: 1024 }] } });
    const disks = vm.spec.resources.disk_list;
    expect(disks.map((d) => d.storage_config)).toEqual([
      { storage_container_reference: { kind: 'storage_container', name: 'fast', uuid: FAST1 } },
      { storage_container_reference: { kind: 'storage_container', name: 'default', uuid: DEFAULT1 } },
    ]);

    for (const [uuid, error] of [[DEFAULT2, 'INVALID_ARGUMENT'], ['5c0e7a10-0000-4000-8000-0000000000ff', 'ENTITY_NOT_FOUND']] as const) {
      const { taskUuid } = await prism.client.createVm({ name: `elsewhere-${error}`, cluster_reference: { kind: 'cluster', uuid: PE1 }, resources: { disk_list: [{ ...onFast, storage_config: { storage_container_reference: { kind: 'storage_container', uuid } } }] } });
      expect(await prism.client.waitForTask(taskUuid)).toMatchObject({ status: 'FAILED', error_code: error });
    }
  });

  it('v4: a disk created with backingInfo.storageContainer lands there, the container clustermgmt lists by name and clusterExtId', async () => {
    const v4 = new V4TestClient(prism.simulator);
    const filter = encodeURIComponent(`name eq 'fast' and clusterExtId eq '${PE1}'`);
    const listed = await v4.request('GET', `${CLUSTERMGMT_STORAGE_CONTAINERS_PATH}?$filter=${filter}`);
    expect((listed.json as { data: { containerExtId: string }[] }).data.map((c) => c.containerExtId)).toEqual([FAST1]);
    const backingInfo = { $objectType: 'vmm.v4.ahv.config.VmDisk', diskSizeBytes: 1024 ** 3, storageContainer: { extId: FAST1 } };
    const extId = await v4.createReadyVm({ name: 'v4-on-fast', numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: PE1 }, disks: [{ backingInfo }] });
    const { vm } = await v4.getVm(extId);
    expect(vm.disks.map((d) => (d.backingInfo as { storageContainer?: { extId: string } }).storageContainer?.extId)).toEqual([FAST1]);
    const v3 = await prism.client.getVm(extId);
    expect(v3.spec.resources.disk_list[0]?.storage_config).toEqual({ storage_container_reference: { kind: 'storage_container', name: 'fast', uuid: FAST1 } });
  });
});
