import { describe, expect, it } from 'vitest';
import { desiredVm, observedVm, prismVm } from '../../../test/prism-vm-fixture.ts';
import type { PrismVmApi } from '../../vm/prism-vm-api.ts';
import { diffVm } from '../../vm/vm-diff.ts';
import type { PrismClient } from './prism-client.ts';
import type { PrismVm, PrismVmIntent } from './prism-types.ts';
import { PrismV3VmApi } from './v3-vm-api.ts';

/** A PrismClient that answers one VM and records the PUTs; only what PrismV3VmApi uses for them. */
function fakeClient(vm: PrismVm) {
  const puts: PrismVmIntent[] = [];
  const client = {
    getVm: () => Promise.resolve(structuredClone(vm)),
    listVmsByName: () => Promise.resolve([structuredClone(vm)]),
    updateVm: (_uuid: string, body: PrismVmIntent) => {
      puts.push(body);
      return Promise.resolve('task-put');
    },
  };
  return { client: client as unknown as PrismClient, puts };
}

describe('PrismV3VmApi', () => {
  it('builds each PUT from the v3 VM its ObservedVm was read from, spec_version and server-filled fields included', async () => {
    const read = prismVm({ power: 'ON', specVersion: 7 });
    const { client, puts } = fakeClient(read);
    // As the reconciler holds it.
    const api: PrismVmApi = new PrismV3VmApi(client);
    const desired = desiredVm({ num_sockets: 4, num_vcpus_per_socket: 1, memory_size_mib: 2048 });
    for (const vm of [await api.getVm(read.metadata.uuid), ...(await api.listVmsByName(read.spec.name))]) {
      if (vm === undefined) throw new Error('unreachable');
      await api.applyStep(vm, { action: 'apply-spec' }, desired, diffVm(vm, desired));
    }
    expect(puts.map((body) => [body.metadata.spec_version, body.metadata.project_reference, body.spec.resources.num_sockets])).toEqual([
      [7, read.metadata.project_reference, 4],
      [7, read.metadata.project_reference, 4],
    ]);
  });

  it('refuses a VM it did not read: a full-spec PUT cannot be made from the model alone', async () => {
    const api: PrismVmApi = new PrismV3VmApi(fakeClient(prismVm()).client);
    const desired = desiredVm({});
    const vm = observedVm();
    await expect(api.applyStep(vm, { action: 'apply-spec' }, desired, diffVm(vm, desired))).rejects.toThrow(/not read through this API/);
  });
});
