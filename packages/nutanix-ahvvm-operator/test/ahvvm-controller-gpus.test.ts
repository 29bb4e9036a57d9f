// An AhvVm's `gpus`, as CAPX attaches a NutanixMachine's (NutanixGPU: by device id or name), on each API:
// - v3 as CAPX v1.7.0 (controllers/helpers.go `GetGPU`/`GetGPUsForPE`): POST /hosts/list, the VM's cluster's hosts,
//   their `gpu_list` entries with status UNUSED, copied into the create's `spec.resources.gpu_list`;
// - v4 as CAPX v1.10.3 (controllers/helpers.go `GetGPUsForPE`): clustermgmt physical GPU profiles filtered on
//   `physicalGpuConfig/deviceId eq …` or `deviceName eq '…'`, then the virtual ones, not in use, sent as the create's
//   `gpus` (vmm-go-client v4.2.1 config.Gpu).
// A GPU the cluster lacks, or has none free of, is Ready=False GpuNotFound naming the GPU and the cluster, and no VM.

import { describe, expect, it } from 'vitest';
import type { PrismApiVersion } from '../src/vm/prism-vm-api.ts';
import { useOperatorPerSimulator } from './operator-per-simulator.ts';
import { clientFor } from './simulator.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const fixture = useOperatorPerSimulator();

describe.each<PrismApiVersion>(['v3', 'v4'])('gpus on %s', (version) => {
  it('attaches a free passthrough GPU by name and a vGPU by device id; a GPU none is free of is GpuNotFound, with no VM', async () => {
    const namespace = `gpus-${version}`;
    const simulator = await fixture.setUp(namespace, {
      clusters: [{
        name: 'pe-gpu',
        uuid: PE1,
        gpus: [
          { type: 'PASSTHROUGH_COMPUTE', deviceId: 8629, deviceName: 'NVIDIA A16', vendorName: 'kNvidia', count: 1 },
          { type: 'VIRTUAL', deviceId: 1101, deviceName: 'NVIDIA A16-4Q', vendorName: 'kNvidia', count: 2 },
        ],
      }],
    }, version);
    await fixture.env.apply(namespace, 'gpu-vm', { gpus: [{ name: 'NVIDIA A16' }, { device_id: 1101 }] });
    const avm = await fixture.env.waitForCondition(namespace, 'gpu-vm', 'Ready', 'True', 'Available');
    const v3 = clientFor(simulator);
    const vm = await v3.getVm(avm.status?.uuid ?? '').finally(() => v3.close());
    expect(vm?.spec.resources.gpu_list).toEqual([
      expect.objectContaining({ device_id: 8629, mode: 'PASSTHROUGH_COMPUTE', vendor: 'NVIDIA' }),
      expect.objectContaining({ device_id: 1101, mode: 'VIRTUAL', vendor: 'NVIDIA' }),
    ]);

    // The only A16 is taken now.
    await fixture.env.apply(namespace, 'second', { gpus: [{ device_id: 8629 }] });
    const second = await fixture.env.waitForCondition(namespace, 'second', 'Ready', 'False', 'GpuNotFound');
    expect(second.status?.conditions?.find((c) => c.type === 'Ready')?.message).toBe(
      `gpus[0]: cluster ${PE1} has no free GPU with device id 8629 (Prism ${version}); free one, or ask for a GPU the cluster has`,
    );
    expect(simulator.inspect().vms.map((v) => v.name)).toEqual(['gpu-vm']);
  });
});
