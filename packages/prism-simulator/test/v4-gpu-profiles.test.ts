// A cluster's GPU profiles (clustermgmt v4.2 physical-gpu-profiles and virtual-gpu-profiles) as CAPX v1.10.3 reads
// them when a NutanixMachine asks for GPUs (helpers.go GetGPUsForPE): the $filter forms it sends, the fields it
// dereferences (deviceId, deviceName, vendorName, type, isInUse), a profile in use once VMs created with its GPU took
// all of it, GPUs in the v4 VM, the v3 VM and the request log, and the 404 of an unknown cluster.

import { describe, expect, it } from 'vitest';
import { CLUSTERMGMT_CLUSTERS_PATH, type GpuSeed, type PrismSimulatorOptions } from '../src/index.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage, v4VmBody, type V4ListJson } from './v4-client.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const PE2 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a02';
const PC = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6aff';

const A16: GpuSeed = { type: 'PASSTHROUGH_COMPUTE', deviceId: 8629, deviceName: 'NVIDIA A16', vendorName: 'kNvidia', count: 2, frameBufferSizeBytes: 17_179_869_184 };
const FLEX: GpuSeed = { type: 'PASSTHROUGH_GRAPHICS', deviceId: 22_976, deviceName: 'Intel Data Center GPU Flex 170', vendorName: 'kIntel' };
const A16_VGPU: GpuSeed = { type: 'VIRTUAL', deviceId: 1101, deviceName: 'NVIDIA A16-4Q', vendorName: 'kNvidia', count: 4, frameBufferSizeBytes: 4_294_967_296 };

const SEEDS: PrismSimulatorOptions = {
  clusters: [{ name: 'pe-gpu', uuid: PE1, gpus: [A16, FLEX, A16_VGPU] }, { name: 'pe-plain', uuid: PE2 }],
  prismCentral: { name: 'the-pc', uuid: PC },
};

interface GpuConfig {
  $objectType: string;
  deviceId: number;
  deviceName: string;
  vendorName: string;
  type: string;
  isInUse: boolean;
  assignable: number;
  mode?: string;
}
interface Profile {
  $objectType: string;
  $reserved: Record<string, unknown>;
  physicalGpuConfig?: GpuConfig;
  virtualGpuConfig?: GpuConfig;
  allocatedVmExtIds?: string[];
}

/** The query string CAPX's Go client sends: url.Values.Encode of $filter and $page (keys sorted, `+` for spaces). */
const capxQuery = (filter: string): string => `?${new URLSearchParams({ $filter: filter, $page: '0' }).toString()}`;

describe('the v4 GPU profiles of a cluster', () => {
  const prism = useFastSimulator(SEEDS, (simulator) => new V4TestClient(simulator));

  async function profiles(kind: 'physical' | 'virtual', cluster: string, query = ''): Promise<V4ListJson<Profile> & { $objectType: string }> {
    const reply = await prism.client.request('GET', `${CLUSTERMGMT_CLUSTERS_PATH}/${cluster}/${kind}-gpu-profiles${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.json as V4ListJson<Profile> & { $objectType: string };
  }

  it('lists the passthrough seeds as physical profiles and the VIRTUAL ones as virtual profiles, in the v4.2 models', async () => {
    const physical = await profiles('physical', PE1);
    expect(physical.$objectType).toBe('clustermgmt.v4.config.ListPhysicalGpuProfilesApiResponse');
    expect(physical.metadata.totalAvailableResults).toBe(2);
    expect(physical.data?.map((p) => p.$objectType)).toEqual(['clustermgmt.v4.config.PhysicalGpuProfile', 'clustermgmt.v4.config.PhysicalGpuProfile']);
    expect(physical.data?.[0]?.physicalGpuConfig).toMatchObject({
      $objectType: 'clustermgmt.v4.config.PhysicalGpuConfig',
      type: 'PASSTHROUGH_COMPUTE',
      deviceId: 8629,
      deviceName: 'NVIDIA A16',
      vendorName: 'kNvidia',
      isInUse: false,
      assignable: 2,
      mode: 'UNUSED',
      frameBufferSizeBytes: 17_179_869_184,
    });
    expect(physical.data?.[1]?.physicalGpuConfig).toMatchObject({ type: 'PASSTHROUGH_GRAPHICS', deviceId: 22_976, vendorName: 'kIntel', isInUse: false, assignable: 1 });
    const virtual = await profiles('virtual', PE1);
    expect(virtual.$objectType).toBe('clustermgmt.v4.config.ListVirtualGpuProfilesApiResponse');
    expect(virtual.data?.map((p) => p.virtualGpuConfig)).toEqual([
      expect.objectContaining({ $objectType: 'clustermgmt.v4.config.VirtualGpuConfig', type: 'VIRTUAL', deviceId: 1101, deviceName: 'NVIDIA A16-4Q', vendorName: 'kNvidia', isInUse: false }),
    ]);
  });

  it('answers the $filter forms CAPX sends: deviceId as a number, deviceName as a string, on physicalGpuConfig and virtualGpuConfig', async () => {
    expect((await profiles('physical', PE1, capxQuery('physicalGpuConfig/deviceId eq 22976'))).data?.map((p) => p.physicalGpuConfig?.deviceName)).toEqual(['Intel Data Center GPU Flex 170']);
    expect((await profiles('physical', PE1, capxQuery("physicalGpuConfig/deviceName eq 'NVIDIA A16'"))).data?.map((p) => p.physicalGpuConfig?.deviceId)).toEqual([8629]);
    expect((await profiles('virtual', PE1, capxQuery("virtualGpuConfig/deviceName eq 'NVIDIA A16-4Q'"))).data?.map((p) => p.virtualGpuConfig?.deviceId)).toEqual([1101]);
    expect((await profiles('virtual', PE1, capxQuery('virtualGpuConfig/deviceId eq 1101'))).metadata.totalAvailableResults).toBe(1);
    // No match, and a cluster without GPUs: no `data` at all, as every empty v4 list.
    const none = await profiles('virtual', PE1, capxQuery("virtualGpuConfig/deviceName eq 'NVIDIA A16'"));
    expect(none.data).toBeUndefined();
    expect(none.metadata.totalAvailableResults).toBe(0);
    expect((await profiles('physical', PE2)).data).toBeUndefined();
    // The Prism Central's own cluster entity has no GPUs either.
    expect((await profiles('physical', PC)).data).toBeUndefined();
  });

  it('refuses a field it cannot filter on, saying which it can', async () => {
    const reply = await prism.client.request('GET', `${CLUSTERMGMT_CLUSTERS_PATH}/${PE1}/physical-gpu-profiles${capxQuery('physicalGpuConfig/sbdf eq 1')}`);
    expect(reply.status).toBe(400);
    expect(firstAppMessage(reply).message).toContain('physicalGpuConfig/deviceId');
  });

  it('answers 404 CLUSTER_NOT_FOUND for a cluster it does not have', async () => {
    const reply = await prism.client.request('GET', `${CLUSTERMGMT_CLUSTERS_PATH}/0005f8a0-1d2c-4b6e-9a31-000000000000/virtual-gpu-profiles`);
    expect(reply.status).toBe(404);
    expect((reply.json as { $objectType: string }).$objectType).toBe('clustermgmt.v4.config.ListVirtualGpuProfilesApiResponse');
    expect(firstAppMessage(reply).errorGroup).toBe('CLUSTER_NOT_FOUND');
  });

  it("gives a VM the GPUs of its create body, and counts them against the profile until it is in use (CAPX skips profiles in use)", async () => {
    const { client, simulator } = prism;
    const gpu = { $objectType: 'vmm.v4.ahv.config.Gpu', name: 'NVIDIA A16', deviceId: 8629, mode: 'PASSTHROUGH_COMPUTE', vendor: 'NVIDIA' };
    const body = (name: string): Record<string, unknown> => ({ ...v4VmBody(simulator, name), cluster: { extId: PE1 }, nics: [], gpus: [gpu] });
    const first = await client.createReadyVm(body('gpu-vm-1'));
    const { vm } = await client.getVm(first);
    expect((vm as unknown as { gpus: unknown[] }).gpus).toEqual([{ $objectType: 'vmm.v4.ahv.config.Gpu', $reserved: expect.any(Object) as unknown, mode: 'PASSTHROUGH_COMPUTE', vendor: 'NVIDIA', deviceId: 8629, name: 'NVIDIA A16' }]);
    let a16 = (await profiles('physical', PE1, capxQuery('physicalGpuConfig/deviceId eq 8629'))).data?.[0];
    expect(a16?.physicalGpuConfig).toMatchObject({ isInUse: false, assignable: 1, mode: 'USED_FOR_PASSTHROUGH' });
    expect(a16?.allocatedVmExtIds).toEqual([first]);
    const second = await client.createReadyVm(body('gpu-vm-2'));
    a16 = (await profiles('physical', PE1, capxQuery('physicalGpuConfig/deviceId eq 8629'))).data?.[0];
    expect(a16?.physicalGpuConfig).toMatchObject({ isInUse: true, assignable: 0 });
    expect(a16?.allocatedVmExtIds).toEqual([first, second]);
    // The virtual profile of the same card is counted apart.
    expect((await profiles('virtual', PE1)).data?.[0]?.virtualGpuConfig?.isInUse).toBe(false);
    // Deleting a VM gives its GPU back.
    const deleted = await client.writeWithEtag('DELETE', `/api/vmm/v4.2/ahv/config/vms/${second}`, second);
    expect(deleted.status).toBe('SUCCEEDED');
    expect((await profiles('physical', PE1, capxQuery('physicalGpuConfig/deviceId eq 8629'))).data?.[0]?.physicalGpuConfig?.isInUse).toBe(false);
  });

  it('refuses a GPU without mode, vendor or deviceId, as the create body of a vmm.v4.ahv.config.Gpu needs them', async () => {
    const reply = await prism.client.request('POST', '/api/vmm/v4.2/ahv/config/vms', { ...v4VmBody(prism.simulator, 'bad-gpu'), gpus: [{ name: 'NVIDIA A16', mode: 'PASSTHROUGH_COMPUTE' }] });
    expect(reply.status).toBe(400);
    expect(firstAppMessage(reply).message).toContain('gpus[0]: a GPU needs mode, vendor and deviceId');
  });

  it('logs each request in order, with its path and query as sent and whether it carried If-Match', async () => {
    const before = prism.simulator.requestLog().length;
    await profiles('physical', PE1, capxQuery('physicalGpuConfig/deviceId eq 8629'));
    await profiles('virtual', PE1, capxQuery("virtualGpuConfig/deviceName eq 'NVIDIA A16'"));
    expect(prism.simulator.requestLog().slice(before)).toEqual([
      { method: 'GET', endpoint: 'GET /api/clustermgmt/v4.2/config/clusters/{clusterExtId}/physical-gpu-profiles', path: `${CLUSTERMGMT_CLUSTERS_PATH}/${PE1}/physical-gpu-profiles${capxQuery('physicalGpuConfig/deviceId eq 8629')}`, outcome: 200, ifMatch: false, authenticatedBy: 'basic' },
      { method: 'GET', endpoint: 'GET /api/clustermgmt/v4.2/config/clusters/{clusterExtId}/virtual-gpu-profiles', path: `${CLUSTERMGMT_CLUSTERS_PATH}/${PE1}/virtual-gpu-profiles${capxQuery("virtualGpuConfig/deviceName eq 'NVIDIA A16'")}`, outcome: 200, ifMatch: false, authenticatedBy: 'basic' },
    ]);
  });
});

describe('GPU seeds', () => {
  it('refuses a GPU seed with a vendor CAPX cannot map, at start-up', async () => {
    const { startPrismSimulator } = await import('../src/index.ts');
    await expect(startPrismSimulator({ clusters: [{ name: 'pe', uuid: PE1, gpus: [{ ...A16, vendorName: 'NVIDIA' as GpuSeed['vendorName'] }] }] })).rejects.toThrow('GPU NVIDIA A16 of cluster pe: vendorName must be one of kNvidia, kIntel, kAmd');
  });
});
