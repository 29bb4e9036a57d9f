import { describe, expect, it } from 'vitest';
import { CLUSTER_UUID, IMAGE_UUID, OTHER_SUBNET_UUID, OWNER_UID, SUBNET_UUID, desiredVm } from '../../../test/prism-vm-fixture.ts';
import { descriptionWithOwnerMarker } from '../../desired/ownership-marker.ts';
import { diffVm } from '../../vm/vm-diff.ts';
import type { DesiredVm } from '../../vm/vm-model.ts';
import { PrismApiError } from '../prism-errors.ts';
import type { PrismV4Client, PrismV4DeviceWrite, PrismV4Vm } from './prism-v4-client.ts';
import { ETAG_MISMATCH_GROUP, PrismV4VmApi } from './v4-vm-api.ts';

const VM: PrismV4Vm = { extId: 'vm-1', name: 'web', numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, powerState: 'ON', cluster: { extId: 'c-1' } };

/** A PrismV4Client that records calls; only what PrismV4VmApi uses. */
function fakeClient(categories: Record<string, string | undefined> = {}, vm: PrismV4Vm = VM) {
  const calls: string[] = [];
  let etag = 1;
  const client = {
    getVm: (extId: string) => {
      calls.push(`GET ${extId}`);
      return Promise.resolve({ vm, etag: `e${String(etag)}` });
    },
    listVmsByName: () => {
      calls.push('LIST');
      return Promise.resolve([VM]);
    },
    createVm: (_vm: unknown, options: { requestId: string }) => {
      calls.push(`POST ${options.requestId}`);
      return Promise.resolve('task-create');
    },
    updateVm: (extId: string, vm: PrismV4Vm, ifMatch: string) => {
      calls.push(`PUT ${extId} ${ifMatch} sockets=${String(vm.numSockets)}`);
      etag += 1;
      return Promise.resolve('task-put');
    },
    powerAction: (extId: string, action: string, ifMatch: string) => {
      calls.push(`${action} ${extId} ${ifMatch}`);
      return Promise.resolve('task-power');
    },
    deleteVm: (extId: string, ifMatch: string) => {
      calls.push(`DELETE ${extId} ${ifMatch}`);
      return Promise.resolve('task-delete');
    },
    changeDevice: (extId: string, change: PrismV4DeviceWrite, ifMatch: string) => {
      calls.push(`${change.device} ${extId} ${change.deviceExtId ?? 'new'} ${ifMatch} ${change.body === undefined ? 'delete' : JSON.stringify(change.body)}`);
      return Promise.resolve('task-device');
    },
    findCategoryExtId: (key: string, value: string) => {
      calls.push(`CATEGORY ${key}=${value}`);
      return Promise.resolve(categories[`${key}=${value}`]);
    },
  };
  return { client: client as unknown as PrismV4Client, calls };
}

describe('PrismV4VmApi', () => {
  it('sends each step with the ETag of the read its plan came from: power as actions, the spec as a PUT', async () => {
    const { client, calls } = fakeClient();
    const api = new PrismV4VmApi(client);
    const vm = await api.getVm('vm-1');
    if (vm === undefined) throw new Error('unreachable');
    const desired = desiredVm({ num_sockets: 2 });
    await api.applyStep(vm, { action: 'power-off' }, desired, diffVm(vm, desired));
    await api.applyStep(vm, { action: 'apply-spec' }, desired, diffVm(vm, desired));
    await api.applyStep(vm, { action: 'power-on' }, desired, diffVm(vm, desired));
    await api.deleteVm(vm);
    expect(calls).toEqual(['GET vm-1', 'power-off vm-1 e1', 'PUT vm-1 e1 sockets=2', 'power-on vm-1 e1', 'DELETE vm-1 e1']);
  });

  it('reads a listed VM again for its ETag before changing it', async () => {
    const { client, calls } = fakeClient();
    const api = new PrismV4VmApi(client);
    const [listed] = await api.listVmsByName('web');
    if (listed === undefined) throw new Error('unreachable');
    await api.deleteVm(listed);
    expect(calls).toEqual(['LIST', 'GET vm-1', 'DELETE vm-1 e1']);
  });

  it('creates with the token as NTNX-Request-Id; no token is ever spent', async () => {
    const { client, calls } = fakeClient();
    const api = new PrismV4VmApi(client);
    const token = await api.newCreateToken();
    expect(await api.createVm(desiredVm({}), token)).toEqual({ uuid: undefined, taskUuid: 'task-create', alreadyExisted: false });
    expect(calls).toEqual([`POST ${token}`]);
    expect(api.isSpentCreateToken()).toBe(false);
  });

  it('takes a stale ETag (412) and a task failed VM_ETAG_MISMATCH for edit conflicts, and nothing else', () => {
    const api = new PrismV4VmApi(fakeClient().client);
    expect(api.isEditConflict(new PrismApiError({ method: 'PUT', path: '/vms/x' }, 412, [{ reason: 'INVALID_ETAG_HEADER', message: 'Invalid eTag header' }]))).toBe(true);
    expect(api.isEditConflict({ uuid: 't', status: 'FAILED', errorCode: ETAG_MISMATCH_GROUP })).toBe(true);
    expect(api.isEditConflict({ uuid: 't', status: 'FAILED', errorCode: 'INTERNAL_ERROR' })).toBe(false);
    expect(api.isEditConflict(new PrismApiError({ method: 'PUT', path: '/vms/x' }, 500, []))).toBe(false);
  });

  it('looks categories up once, names them on VMs read, and says why when it cannot', async () => {
    const { client, calls } = fakeClient({ 'Environment=Prod': 'cat-prod', 'Team=none': undefined });
    let now = 0;
    const api = new PrismV4VmApi(client, () => now);
    const desired = desiredVm({ categories: { Environment: 'Prod' } });
    expect(await api.prepare(desired)).toBeUndefined();
    expect(await api.prepare(desired)).toBeUndefined();
    expect(calls.filter((c) => c.startsWith('CATEGORY'))).toHaveLength(1);
    now = 5 * 60_000;
    await api.prepare(desired);
    expect(calls.filter((c) => c.startsWith('CATEGORY'))).toHaveLength(2);

    const before = VM.categories;
    VM.categories = [{ extId: 'cat-prod' }];
    expect((await api.getVm('vm-1'))?.categories).toEqual({ Environment: 'Prod' });
    VM.categories = before;

    expect(await api.prepare(desiredVm({ categories: { Team: 'none' } }))).toMatchObject({ reason: 'CategoryNotFound', message: 'category Team=none does not exist in Prism Central' });
  });

  it("makes disk and NIC changes through the VM's sub-resources, one per step, with the VM's ETag", async () => {
    // The seed's VM as v4 shows it, so that only its devices differ from what the steps ask for.
    const withDevices: PrismV4Vm = {
      ...VM,
      name: 'ahvvm-from-operator',
      description: descriptionWithOwnerMarker(undefined, OWNER_UID),
      cluster: { extId: CLUSTER_UUID },
      numSockets: 2,
      memorySizeBytes: 2048 * 1024 ** 2,
      disks: [{ extId: 'disk-0', diskAddress: { busType: 'SCSI', index: 0 }, backingInfo: { diskSizeBytes: 8192 * 1024 ** 2, dataSource: { reference: { imageExtId: IMAGE_UUID } } } }],
      nics: [{ extId: 'nic-0', nicNetworkInfo: { subnet: { extId: SUBNET_UUID } } }],
    };
    const { client, calls } = fakeClient({}, withDevices);
    const api = new PrismV4VmApi(client);
    const seed = { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 } as const;
    const vm = await api.getVm('vm-1');
    if (vm === undefined) throw new Error('unreachable');
    const applySpec = (desired: DesiredVm) => api.applyStep(vm, { action: 'apply-spec' }, desired, diffVm(vm, desired));
    await applySpec(desiredVm({ ...seed, disks: [{ image: { uuid: IMAGE_UUID }, size_mib: 16384 }] }));
    await applySpec(desiredVm({ ...seed, nics: [{ subnet: { uuid: OTHER_SUBNET_UUID } }] }));
    await applySpec(desiredVm({ ...seed, nics: [] }));
    expect(calls.slice(1).map((call) => call.replace(/ \{.*/, ''))).toEqual(['disk vm-1 disk-0 e1', 'nic vm-1 nic-0 e1', 'nic vm-1 nic-0 e1 delete']);
    // The grown disk is the disk as read with the new size and no data source (an existing disk is never re-imaged).
    expect(JSON.parse(calls[1]?.slice(calls[1].indexOf('{')) ?? '')).toEqual({
      extId: 'disk-0',
      diskAddress: { busType: 'SCSI', index: 0 },
      backingInfo: { $objectType: 'vmm.v4.ahv.config.VmDisk', diskSizeBytes: 16384 * 1024 ** 2 },
    });
    expect(calls[2]).toContain(`"subnet":{"extId":"${OTHER_SUBNET_UUID}"}`);
  });
});
