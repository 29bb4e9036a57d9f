import type { AhvVmSpec } from '../api/ahvvm-resource.ts';
import type { PrismVmApi } from '../vm/prism-vm-api.ts';
import type { DesiredGpu, GpuRequest } from '../vm/vm-model.ts';

export type GpuResolution = { ok: true; gpus: DesiredGpu[] | undefined } | { ok: false; reason: 'GpuNotFound'; message: string };

/**
 * The GPUs a create attaches: for each of the AhvVm's `gpus`, the first free GPU of the VM's cluster with that device id
 * or name, through the API in use (`PrismVmApi.findFreeGpus`, as CAPX's `GetGPU`). Asked at each create, never cached:
 * which GPUs are free changes with every VM. One that is not there, or not free, says which GPU and which cluster.
 */
export async function resolveGpus(api: PrismVmApi, clusterUuid: string, gpus: AhvVmSpec['gpus']): Promise<GpuResolution> {
  if (gpus === undefined || gpus.length === 0) return { ok: true, gpus: undefined };
  const found: DesiredGpu[] = [];
  for (const [index, gpu] of gpus.entries()) {
    const request: GpuRequest = gpu.device_id === undefined ? { name: gpu.name ?? '' } : { deviceId: gpu.device_id };
    const [free] = await api.findFreeGpus(clusterUuid, request);
    if (free === undefined) {
      const what = request.deviceId === undefined ? `named ${JSON.stringify(request.name)}` : `with device id ${String(request.deviceId)}`;
      return {
        ok: false,
        reason: 'GpuNotFound',
        message: `gpus[${String(index)}]: cluster ${clusterUuid} has no free GPU ${what} (Prism ${api.version}); free one, or ask for a GPU the cluster has`,
      };
    }
    found.push(free);
  }
  return { ok: true, gpus: found };
}
