// The GPUs of a cluster as a v3 client finds them and as a create takes them: POST /hosts/list shows each cluster's
// host with its `gpu_list`, which CAPX v1.7.0 reads (controllers/helpers.go `GetGPUsForPE` through prism-go-client's
// `ListAllHost`, v3_structs.go `HostResources.GPUList`/`GPU`: entries with status UNUSED, matched by device_id or
// name, whose device_id, mode and vendor go into the VM's `gpu_list`), and a create naming a GPU the cluster does
// not have, or has none free of, is accepted and fails its task naming the GPU and the cluster — on v3 and on v4
// (vmm v4.2 `gpus`, as CAPX v1.10.3 sends them).

import { describe, expect, it } from 'vitest';
import type { GpuSeed } from '../src/index.ts';
import { GO_METADATA, goDecodeProblems, goSlice, goStruct } from './go-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, v4VmBody } from './v4-client.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const PE2 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a02';
const A16: GpuSeed = { type: 'PASSTHROUGH_COMPUTE', deviceId: 8629, deviceName: 'NVIDIA A16', vendorName: 'kNvidia', count: 1 };
const A16_VGPU: GpuSeed = { type: 'VIRTUAL', deviceId: 1101, deviceName: 'NVIDIA A16-4Q', vendorName: 'kNvidia', count: 2 };

/** prism-go-client v3 `GPU` and the host fields CAPX reads. */
const GO_GPU = goStruct({ status: 'string', vendor: 'string', assignable: 'bool', name: 'string', index: 'int', mode: 'string', device_id: 'int', frame_buffer_size_mib: 'int' });
const GO_HOST_LIST = goStruct({
  api_version: 'string',
  entities: goSlice(goStruct({
    metadata: GO_METADATA,
    status: goStruct({ state: 'string', name: 'string', cluster_reference: goStruct({ kind: 'string', uuid: 'string', name: 'string' }), resources: goStruct({ gpu_list: goSlice(GO_GPU) }) }),
  })),
  metadata: goStruct({ kind: 'string', length: 'int', offset: 'int', total_matches: 'int' }),
});

interface HostJson { status: { cluster_reference: { uuid: string }; resources: { gpu_list: { status: string; device_id: number; name: string; mode: string; vendor: string }[] } } }

describe('GPU inventory', () => {
  const prism = useFastSimulator({ clusters: [{ name: 'pe-gpu', uuid: PE1, gpus: [A16, A16_VGPU] }, { name: 'pe-plain', uuid: PE2 }] });

  async function gpusOf(cluster: string): Promise<HostJson['status']['resources']['gpu_list']> {
    const reply = await prism.client.request('POST', '/hosts/list', { kind: 'host' });
    expect(reply.status).toBe(200);
    expect(goDecodeProblems(reply.json, GO_HOST_LIST)).toEqual([]);
    return (reply.json as { entities: HostJson[] }).entities.filter((h) => h.status.cluster_reference.uuid === cluster).flatMap((h) => h.status.resources.gpu_list);
  }

  it('v3: POST /hosts/list shows each cluster\'s host with one gpu_list entry per device or vGPU, all pages at once', async () => {
    expect((await gpusOf(PE1)).map((g) => [g.status, g.device_id, g.name, g.mode, g.vendor])).toEqual([
      ['UNUSED', 8629, 'NVIDIA A16', 'PASSTHROUGH_COMPUTE', 'NVIDIA'],
      ['UNUSED', 1101, 'NVIDIA A16-4Q', 'VIRTUAL', 'NVIDIA'],
      ['UNUSED', 1101, 'NVIDIA A16-4Q', 'VIRTUAL', 'NVIDIA'],
    ]);
    expect(await gpusOf(PE2)).toEqual([]);
  });

  it('v3: a VM created with a GPU CAPX v1.7.0 picked takes it (USED); a second for the same device fails its task, naming GPU and cluster', async () => {
    const [a16] = await gpusOf(PE1);
    const gpu = { device_id: a16?.device_id, mode: a16?.mode, vendor: a16?.vendor };
    const spec = (name: string) => ({ name, cluster_reference: { kind: 'cluster', uuid: PE1 }, resources: { gpu_list: [gpu] } });
    await prism.client.createReadyVm(spec('gpu-one'));
    expect((await gpusOf(PE1))[0]?.status).toBe('USED');
    const { uuid, taskUuid } = await prism.client.createVm(spec('gpu-two'));
    const task = await prism.client.waitForTask(taskUuid);
    expect(task.status).toBe('FAILED');
    expect(task.error_detail).toBe(`INVALID_ARGUMENT: no free GPU PASSTHROUGH_COMPUTE device 8629 (NVIDIA A16) on cluster pe-gpu (${PE1}): 1 in all, 1 taken`);
    expect((await prism.client.request('GET', `/vms/${uuid}`)).status).toBe(404);
  });

  it('v3 and v4: a GPU the cluster does not have fails the create task with ENTITY_NOT_FOUND naming GPU and cluster', async () => {
    const { taskUuid } = await prism.client.createVm({ name: 'no-gpu-here', cluster_reference: { kind: 'cluster', uuid: PE2 }, resources: { gpu_list: [{ device_id: 8629, mode: 'PASSTHROUGH_COMPUTE', vendor: 'NVIDIA' }] } });
    const task = await prism.client.waitForTask(taskUuid);
    expect(task).toMatchObject({ status: 'FAILED', error_detail: `ENTITY_NOT_FOUND: GPU PASSTHROUGH_COMPUTE device 8629 is not in the inventory of cluster pe-plain (${PE2})` });

    const v4 = new V4TestClient(prism.simulator);
    const body = { ...v4VmBody(prism.simulator, 'v4-no-gpu'), cluster: { extId: PE1 }, nics: [], gpus: [{ mode: 'VIRTUAL', vendor: 'NVIDIA', deviceId: 9999 }] };
    const { taskExtId } = await v4.createVm(body);
    const failed = await v4.waitForTask(taskExtId);
    expect(failed.status).toBe('FAILED');
    expect(failed.legacyErrorMessage).toContain(`GPU VIRTUAL device 9999 is not in the inventory of cluster pe-gpu (${PE1})`);
  });
});
