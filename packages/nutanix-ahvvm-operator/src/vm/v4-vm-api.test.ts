import { describe, expect, it } from 'vitest';
import { desiredIntent } from '../../test/prism-vm-fixture.ts';
import { PrismApiError } from '../prism/prism-errors.ts';
import type { PrismV4Client, PrismV4Vm } from '../prism/prism-v4-client.ts';
import { ETAG_MISMATCH_GROUP, PrismV4VmApi } from './v4-vm-api.ts';

const VM: PrismV4Vm = { extId: 'vm-1', name: 'web', numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, powerState: 'ON', cluster: { extId: 'c-1' } };

/** A PrismV4Client that records calls; only what PrismV4VmApi uses. */
function fakeClient(categories: Record<string, string | undefined> = {}) {
  const calls: string[] = [];
  let etag = 1;
  const client = {
    getVm: (extId: string) => {
      calls.push(`GET ${extId}`);
      return Promise.resolve({ vm: VM, etag: `e${String(etag)}` });
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
    findCategoryExtId: (key: string, value: string) => {
      calls.push(`CATEGORY ${key}=${value}`);
      const found = categories[`${key}=${value}`];
      return found === 'missing-api'
        ? Promise.reject(new PrismApiError({ method: 'GET', path: '/categories' }, 404, [{ reason: 'NOT_FOUND', message: 'no such path' }]))
        : Promise.resolve(found);
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
    const desired = desiredIntent({ num_sockets: 2 });
    await api.applyStep(vm, { action: 'power-off' }, desired);
    await api.applyStep(vm, { action: 'apply-spec' }, desired);
    await api.applyStep(vm, { action: 'power-on' }, desired);
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
    expect(await api.createVm(desiredIntent({}), token)).toEqual({ uuid: undefined, taskUuid: 'task-create', alreadyExisted: false });
    expect(calls).toEqual([`POST ${token}`]);
    expect(api.isSpentCreateToken()).toBe(false);
  });

  it('takes a stale ETag (412) and a task failed VM_ETAG_MISMATCH for edit conflicts, and nothing else', () => {
    const api = new PrismV4VmApi(fakeClient().client);
    expect(api.isEditConflict(new PrismApiError({ method: 'PUT', path: '/vms/x' }, 412, [{ reason: 'INVALID_ETAG_HEADER', message: 'Invalid eTag header' }]))).toBe(true);
    expect(api.isEditConflict({ uuid: 't', status: 'FAILED', error_code: ETAG_MISMATCH_GROUP })).toBe(true);
    expect(api.isEditConflict({ uuid: 't', status: 'FAILED', error_code: 'INTERNAL_ERROR' })).toBe(false);
    expect(api.isEditConflict(new PrismApiError({ method: 'PUT', path: '/vms/x' }, 500, []))).toBe(false);
  });

  it('looks categories up once, names them on VMs read, and says why when it cannot', async () => {
    const { client, calls } = fakeClient({ 'Environment=Prod': 'cat-prod', 'Team=none': undefined, 'Env=Api': 'missing-api' });
    let now = 0;
    const api = new PrismV4VmApi(client, () => now);
    const intent = desiredIntent({ categories: { Environment: 'Prod' } });
    expect(await api.prepare(intent)).toBeUndefined();
    expect(await api.prepare(intent)).toBeUndefined();
    expect(calls.filter((c) => c.startsWith('CATEGORY'))).toHaveLength(1);
    now = 5 * 60_000;
    await api.prepare(intent);
    expect(calls.filter((c) => c.startsWith('CATEGORY'))).toHaveLength(2);

    const before = VM.categories;
    VM.categories = [{ extId: 'cat-prod' }];
    expect((await api.getVm('vm-1'))?.metadata.categories).toEqual({ Environment: 'Prod' });
    VM.categories = before;

    expect(await api.prepare(desiredIntent({ categories: { Team: 'none' } }))).toMatchObject({ reason: 'CategoryNotFound' });
    expect(await api.prepare(desiredIntent({ categories: { Env: 'Api' } }))).toMatchObject({ reason: 'CategoriesUnavailable' });
  });
});
