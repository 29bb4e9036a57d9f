// The v4 disk and NIC sub-resources of a VM (`…/vms/{vmExtId}/disks[/{extId}]`, `…/nics[/{extId}]`): each write
// needs the VM's ETag and an NTNX-Request-Id, answers a TaskReference, and runs as an update of the VM under the v3
// rules — new devices get their extId, address and MAC, a disk never shrinks, an update keeps what its body leaves
// out, a NIC moved to another subnet gets an address there.

import { beforeAll, describe, expect, it } from 'vitest';
import { VMM_VMS_PATH } from '../src/index.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage, v4VmBody, type V4TaskJson } from './v4-client.ts';

const GIB = 1024 ** 3;

describe('the v4 disk and NIC endpoints', () => {
  const prism = useFastSimulator({}, (simulator) => new V4TestClient(simulator));
  let vmExtId = '';

  beforeAll(async () => {
    vmExtId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'devices', { powerState: 'ON' }));
  });

  /** A device write with the VM's current ETag; the finished task. */
  async function write(method: string, path: string, body?: unknown): Promise<{ reply: Awaited<ReturnType<V4TestClient['request']>>; task: V4TaskJson }> {
    const { etag } = await prism.client.getVm(vmExtId);
    const reply = await prism.client.request(method, `${VMM_VMS_PATH}/${vmExtId}${path}`, body, { ifMatch: etag });
    expect(reply.status, reply.text).toBe(202);
    return { reply, task: await prism.client.waitForTask((reply.json as { data: { extId: string } }).data.extId) };
  }

  it('adds a disk to a running VM: CreateDiskApiResponse, a new extId and the next SCSI index', async () => {
    const { reply, task } = await write('POST', '/disks', { $objectType: 'vmm.v4.ahv.config.Disk', backingInfo: { $objectType: 'vmm.v4.ahv.config.VmDisk', diskSizeBytes: GIB } });
    expect(reply.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.CreateDiskApiResponse', data: { $objectType: 'prism.v4.config.TaskReference' } });
    expect(task.status).toBe('SUCCEEDED');
    const { vm } = await prism.client.getVm(vmExtId);
    expect(vm.disks.map((d) => [d.diskAddress.index, d.backingInfo.diskSizeBytes])).toEqual([[0, 20 * GIB], [1, GIB]]);
    expect(vm.disks[1]?.extId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('grows a disk with PUT, keeping its image, address and extId; a smaller size fails the task', async () => {
    const before = (await prism.client.getVm(vmExtId)).vm.disks[0];
    const grow = await write('PUT', `/disks/${before?.extId ?? ''}`, { $objectType: 'vmm.v4.ahv.config.Disk', backingInfo: { $objectType: 'vmm.v4.ahv.config.VmDisk', diskSizeBytes: 30 * GIB } });
    expect(grow.reply.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.UpdateDiskApiResponse' });
    expect(grow.task.status).toBe('SUCCEEDED');
    const after = (await prism.client.getVm(vmExtId)).vm.disks[0];
    expect(after).toMatchObject({ extId: before?.extId, diskAddress: before?.diskAddress, backingInfo: { diskSizeBytes: 30 * GIB, dataSource: before?.backingInfo.dataSource } });

    const shrink = await write('PUT', `/disks/${before?.extId ?? ''}`, { backingInfo: { diskSizeBytes: 10 * GIB } });
    expect(shrink.task).toMatchObject({ status: 'FAILED', errorMessages: [{ errorGroup: '27' }] });
    expect(shrink.task.legacyErrorMessage).toContain("Can't shrink disk");
  });

  it('removes a disk with DELETE', async () => {
    const [, added] = (await prism.client.getVm(vmExtId)).vm.disks;
    const { reply, task } = await write('DELETE', `/disks/${added?.extId ?? ''}`);
    expect(reply.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.DeleteDiskApiResponse' });
    expect(task.status).toBe('SUCCEEDED');
    expect((await prism.client.getVm(vmExtId)).vm.disks.map((d) => d.extId)).not.toContain(added?.extId);
  });

  it('adds a NIC with an address from its IPAM subnet, moves it to another subnet keeping its MAC, and removes it', async () => {
    const [, other] = prism.simulator.subnets.filter((s) => s.ipam);
    const [first] = prism.simulator.subnets.filter((s) => s.ipam);
    const added = await write('POST', '/nics', { $objectType: 'vmm.v4.ahv.config.Nic', nicNetworkInfo: { $objectType: 'vmm.v4.ahv.config.VirtualEthernetNicNetworkInfo', subnet: { extId: first?.uuid } } });
    expect(added.reply.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.CreateNicApiResponse' });
    expect(added.task.status).toBe('SUCCEEDED');
    const nic = (await prism.client.getVm(vmExtId)).vm.nics[1];
    expect(nic?.networkInfo.ipv4Config.ipAddress?.value).toMatch(/^10\.40\.10\./);

    const moved = await write('PUT', `/nics/${nic?.extId ?? ''}`, { nicNetworkInfo: { $objectType: 'vmm.v4.ahv.config.VirtualEthernetNicNetworkInfo', subnet: { extId: other?.uuid } } });
    expect(moved.reply.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.UpdateNicApiResponse' });
    expect(moved.task.status).toBe('SUCCEEDED');
    const after = (await prism.client.getVm(vmExtId)).vm.nics[1];
    expect(after).toMatchObject({ extId: nic?.extId, backingInfo: { macAddress: nic?.backingInfo.macAddress }, networkInfo: { subnet: { extId: other?.uuid } } });
    expect(after?.networkInfo.ipv4Config.ipAddress?.value).toMatch(/^10\.40\.30\./);

    const removed = await write('DELETE', `/nics/${nic?.extId ?? ''}`);
    expect(removed.reply.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.DeleteNicApiResponse' });
    expect((await prism.client.getVm(vmExtId)).vm.nics).toHaveLength(1);
  });

  it('needs the VM\'s ETag and answers 404 for a device the VM does not have', async () => {
    const [disk] = (await prism.client.getVm(vmExtId)).vm.disks;
    const body = { backingInfo: { diskSizeBytes: 40 * GIB } };
    expect((await prism.client.request('PUT', `${VMM_VMS_PATH}/${vmExtId}/disks/${disk?.extId ?? ''}`, body)).status).toBe(428);
    expect((await prism.client.request('PUT', `${VMM_VMS_PATH}/${vmExtId}/disks/${disk?.extId ?? ''}`, body, { ifMatch: 'stale' })).status).toBe(412);
    const { etag } = await prism.client.getVm(vmExtId);
    const unknownDisk = await prism.client.request('PUT', `${VMM_VMS_PATH}/${vmExtId}/disks/00000000-0000-4000-8000-000000000000`, body, { ifMatch: etag });
    expect(unknownDisk.status).toBe(404);
    expect(firstAppMessage(unknownDisk)).toMatchObject({ $objectType: 'vmm.v4.error.AppMessage', errorGroup: 'VM_DISK_NOT_FOUND' });
    const unknownNic = await prism.client.request('DELETE', `${VMM_VMS_PATH}/${vmExtId}/nics/00000000-0000-4000-8000-000000000000`, undefined, { ifMatch: etag });
    expect(firstAppMessage(unknownNic).errorGroup).toBe('VM_NIC_NOT_FOUND');
  });
});
