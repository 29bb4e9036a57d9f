// The v4 contract, endpoint by endpoint: VMM v4.2 VMs (create, get, list, update, delete, power actions), Prism v4.2
// tasks, the v4 error body, ETag / If-Match and NTNX-Request-Id, in the shapes of the v4.2 SDK models.

import { beforeAll, describe, expect, it } from 'vitest';
import { PRISM_TASKS_PATH, TASK_EXT_ID_PREFIX, VMM_VMS_PATH, categoryExtId } from '../src/index.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage, v4VmBody, type V4ErrorJson, type V4ListJson, type V4TaskJson, type V4VmJson } from './v4-client.ts';

describe('the v4 VM API', () => {
  const prism = useFastSimulator({ timings: { createMs: 40 } }, (simulator) => new V4TestClient(simulator));

  describe('POST /vms', () => {
    it('answers 202 with a prism.v4.config.TaskReference whose extId is an Ergon task id', async () => {
      const { reply, taskExtId } = await prism.client.createVm(v4VmBody(prism.simulator, 'create-shape'));
      expect(reply.json).toMatchObject({
        $objectType: 'vmm.v4.ahv.config.CreateVmApiResponse',
        $reserved: { $fv: 'v4.r2' },
        $dataItemDiscriminator: 'prism.v4.config.TaskReference',
        data: { $objectType: 'prism.v4.config.TaskReference', $reserved: { $fv: 'v4.r2' } },
        metadata: { $objectType: 'common.v1.response.ApiResponseMetadata', flags: [{ name: 'hasError', value: false }, { name: 'isPaginated', value: false }] },
      });
      expect(taskExtId).toMatch(new RegExp(`^${TASK_EXT_ID_PREFIX.replace('=', '\\=')}[0-9a-f-]{36}$`));
      await prism.client.waitForTask(taskExtId);
    });

    it('refuses a write without NTNX-Request-Id with the real message, and creates nothing', async () => {
      const before = prism.simulator.inspect().vms.length;
      const reply = await prism.client.request('POST', VMM_VMS_PATH, v4VmBody(prism.simulator, 'no-request-id'), { requestId: null });
      expect(reply.status).toBe(400);
      expect(firstAppMessage(reply)).toMatchObject({ errorGroup: 'MISSING_REQUEST_ID', message: 'Failed to perform the operation as the request ID is missing.', severity: 'ERROR' });
      expect(prism.simulator.inspect().vms.length).toBe(before);
    });

    it('answers a repeated NTNX-Request-Id with the first task and never makes a second VM', async () => {
      const requestId = '6c1c1e9e-33a3-4bd1-a5c2-0b0f6a1d7e11';
      const body = v4VmBody(prism.simulator, 'idempotent-create');
      const first = await prism.client.createVm(body, { requestId });
      const again = await prism.client.createVm(body, { requestId });
      const changedBody = await prism.client.createVm(v4VmBody(prism.simulator, 'another-name'), { requestId });
      expect(again.taskExtId).toBe(first.taskExtId);
      expect(changedBody.taskExtId).toBe(first.taskExtId);
      await prism.client.waitForTask(first.taskExtId);
      expect(prism.simulator.inspect().vms.filter((vm) => vm.name === 'idempotent-create')).toHaveLength(1);
      expect(prism.simulator.inspect().vms.filter((vm) => vm.name === 'another-name')).toHaveLength(0);

      // The same id on another operation is refused rather than answered with a create's task.
      const vmExtId = (await prism.client.getTask(first.taskExtId)).entitiesAffected[0]?.extId ?? '';
      const { etag } = await prism.client.getVm(vmExtId);
      const reused = await prism.client.request('DELETE', `${VMM_VMS_PATH}/${vmExtId}`, undefined, { requestId, ifMatch: etag });
      expect(reused.status).toBe(409);
      expect(firstAppMessage(reused).errorGroup).toBe('DUPLICATE_REQUEST_ID');
    });

    it('refuses a body that does not fit the Vm model with 400 and says which field', async () => {
      const reply = await prism.client.request('POST', VMM_VMS_PATH, v4VmBody(prism.simulator, 'bad', { numSockets: 'two' }));
      expect(reply.status).toBe(400);
      const body = reply.json as V4ErrorJson;
      expect(body).toMatchObject({ $objectType: 'vmm.v4.ahv.config.CreateVmApiResponse', $dataItemDiscriminator: 'vmm.v4.error.ErrorResponse' });
      expect(body.data).toMatchObject({ $objectType: 'vmm.v4.error.ErrorResponse', $errorItemDiscriminator: 'List<vmm.v4.error.AppMessage>' });
      expect(firstAppMessage(reply)).toMatchObject({ $objectType: 'vmm.v4.error.AppMessage', errorGroup: 'INVALID_ARGUMENT' });
      expect(firstAppMessage(reply).message).toContain('numSockets');
    });

    it('fails the task, leaving no VM, when the body names an image that does not exist', async () => {
      const body = v4VmBody(prism.simulator, 'missing-image', {
        disks: [{ diskAddress: { busType: 'SCSI', index: 0 }, backingInfo: { diskSizeBytes: 1024 ** 3, dataSource: { reference: { imageExtId: '00000000-0000-4000-8000-000000000000' } } } }],
      });
      const { taskExtId } = await prism.client.createVm(body);
      const task = await prism.client.waitForTask(taskExtId);
      expect(task.status).toBe('FAILED');
      expect(task.errorMessages?.[0]).toMatchObject({ $objectType: 'prism.v4.error.AppMessage', errorGroup: 'ENTITY_NOT_FOUND', severity: 'ERROR' });
      expect(task.legacyErrorMessage).toContain('Image with uuid 00000000-0000-4000-8000-000000000000 does not exist');
      expect(prism.simulator.inspect().vms.filter((vm) => vm.name === 'missing-image')).toHaveLength(0);
    });
  });

  describe('GET /tasks/{extId}', () => {
    it('runs from QUEUED or RUNNING to SUCCEEDED, naming the VM as vmm:ahv:config:vm, and is the v3 task too', async () => {
      // Long enough to be read before it ends, however busy the machine (40 ms alone was not).
      prism.simulator.faults.add({ kind: 'slow-task', extraMs: 1_000, operation: 'create', times: 1 });
      const { taskExtId } = await prism.client.createVm(v4VmBody(prism.simulator, 'task-shape'));
      const running = await prism.client.getTask(taskExtId);
      expect(['QUEUED', 'RUNNING']).toContain(running.status);
      const done = await prism.client.waitForTask(taskExtId);
      expect(done).toMatchObject({
        $objectType: 'prism.v4.config.Task',
        extId: taskExtId,
        status: 'SUCCEEDED',
        progressPercentage: 100,
        entitiesAffected: [{ $objectType: 'prism.v4.config.EntityReference', rel: 'vmm:ahv:config:vm' }],
        clusterExtIds: [prism.simulator.clusters[0]?.uuid],
        ownedBy: { name: prism.simulator.username },
      });
      expect(done.completedTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const reply = await prism.client.request('GET', `${PRISM_TASKS_PATH}/${taskExtId}`);
      expect(reply.json).toMatchObject({ $objectType: 'prism.v4.config.GetTaskApiResponse', $dataItemDiscriminator: 'prism.v4.config.Task' });

      const v3 = await fetch(`${prism.simulator.url}/api/nutanix/v3/tasks/${taskExtId.slice(TASK_EXT_ID_PREFIX.length)}`, {
        headers: { authorization: `Basic ${Buffer.from(`${prism.simulator.username}:${prism.simulator.password}`).toString('base64')}` },
      });
      expect(((await v3.json()) as { status: string }).status).toBe('SUCCEEDED');
    });

    it('answers an unknown task with 404 and a prism.v4.error body', async () => {
      const reply = await prism.client.request('GET', `${PRISM_TASKS_PATH}/${TASK_EXT_ID_PREFIX}00000000-0000-4000-8000-000000000000`);
      expect(reply.status).toBe(404);
      expect(reply.json).toMatchObject({ $dataItemDiscriminator: 'prism.v4.error.ErrorResponse', data: { $errorItemDiscriminator: 'List<prism.v4.error.AppMessage>' } });
      expect(firstAppMessage(reply).$objectType).toBe('prism.v4.error.AppMessage');
    });
  });

  describe('GET /tasks', () => {
    it("lists tasks with $filter on entitiesAffected/any(...), status and operation, as CAPX asks before a delete", async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'task-list'));
      const list = async (filter: string): Promise<V4ListJson<V4TaskJson>> => {
        const reply = await prism.client.request('GET', `${PRISM_TASKS_PATH}?$filter=${encodeURIComponent(filter)}`);
        expect(reply.status, reply.text).toBe(200);
        return reply.json as V4ListJson<V4TaskJson>;
      };
      const affecting = `entitiesAffected/any(a:a/extId eq '${extId}')`;
      const all = await list(affecting);
      expect(all).toMatchObject({ $objectType: 'prism.v4.config.ListTasksApiResponse', $dataItemDiscriminator: 'List<prism.v4.config.Task>' });
      expect(all.data?.map((task) => task.status)).toEqual(['SUCCEEDED']);
      const running = `${affecting} and (status eq Prism.Config.TaskStatus'RUNNING' or status eq Prism.Config.TaskStatus'QUEUED')`;
      expect((await list(running)).data).toBeUndefined();

      const { etag } = await prism.client.getVm(extId);
      const on = await prism.client.request('POST', `${VMM_VMS_PATH}/${extId}/$actions/power-on`, undefined, { ifMatch: etag });
      const inProgress = await list(running);
      expect(inProgress.data?.map((task) => task.extId)).toEqual([(on.json as { data: { extId: string } }).data.extId]);
      expect((await list(`${affecting} and operation eq '${all.data?.[0]?.operation ?? ''}'`)).data).toHaveLength(1);
      expect((await list("entitiesAffected/any(a:a/extId eq '00000000-0000-4000-8000-000000000000')")).data).toBeUndefined();
      await prism.client.waitForTask((on.json as { data: { extId: string } }).data.extId);

      const bad = await prism.client.request('GET', `${PRISM_TASKS_PATH}?$filter=${encodeURIComponent('clusters/any(c:c/extId eq \'x\')')}`);
      expect(bad.status).toBe(400);
      expect(firstAppMessage(bad).message).toContain("'clusters' is not a filterable collection");
    });
  });

  describe('GET /vms/{extId}', () => {
    it('shows the VM in the Vm model with an ETag header, and $reserved where the SDK puts the ETag', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'get-shape', { description: 'a VM', categories: [{ extId: categoryExtId('Environment', 'Dev') }] }));
      const reply = await prism.client.request('GET', `${VMM_VMS_PATH}/${extId}`);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('etag')).toMatch(/^\S+$/);
      const body = reply.json as { $reserved: unknown; $dataItemDiscriminator: string; data: V4VmJson };
      expect(body).toMatchObject({ $objectType: 'vmm.v4.ahv.config.GetVmApiResponse', $reserved: { $fv: 'v4.r2' }, $dataItemDiscriminator: 'vmm.v4.ahv.config.Vm' });
      const vm = body.data;
      expect(vm).toMatchObject({
        $objectType: 'vmm.v4.ahv.config.Vm',
        $reserved: { $fv: 'v4.r2' },
        extId,
        name: 'get-shape',
        description: 'a VM',
        numSockets: 1,
        numCoresPerSocket: 2,
        numThreadsPerCore: 1,
        memorySizeBytes: 2 * 1024 ** 3,
        powerState: 'OFF',
        machineType: 'PC',
        cluster: { $objectType: 'vmm.v4.ahv.config.ClusterReference', extId: prism.simulator.clusters[0]?.uuid },
        categories: [{ $objectType: 'vmm.v4.ahv.config.CategoryReference', extId: categoryExtId('Environment', 'Dev') }],
        biosUuid: extId,
        $bootConfigItemDiscriminator: 'vmm.v4.ahv.config.LegacyBoot',
      });
      expect(vm.disks).toEqual([
        expect.objectContaining({
          $objectType: 'vmm.v4.ahv.config.Disk',
          diskAddress: expect.objectContaining({ busType: 'SCSI', index: 0 }) as unknown,
          $backingInfoItemDiscriminator: 'vmm.v4.ahv.config.VmDisk',
          backingInfo: expect.objectContaining({ diskSizeBytes: 20 * 1024 ** 3, dataSource: expect.objectContaining({ reference: expect.objectContaining({ imageExtId: prism.simulator.images[0]?.uuid }) as unknown }) as unknown }) as unknown,
        }),
      ]);
      const [nic] = vm.nics;
      const ipamSubnet = prism.simulator.subnets.find((s) => s.ipam);
      expect(nic?.networkInfo.subnet.extId).toBe(ipamSubnet?.uuid);
      expect(nic?.nicNetworkInfo).toMatchObject({ $objectType: 'vmm.v4.ahv.config.VirtualEthernetNicNetworkInfo', subnet: { extId: ipamSubnet?.uuid } });
      expect(nic?.networkInfo.ipv4Config.ipAddress?.value).toMatch(/^10\.40\.10\.\d+$/);
      expect(nic?.backingInfo.macAddress).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    });

    it('answers 404 VM_NOT_FOUND (VMM-30100) for an unknown VM, and for one whose create has not finished', async () => {
      const unknown = await prism.client.request('GET', `${VMM_VMS_PATH}/0b7e7c1a-0000-4000-8000-000000000000`);
      expect(unknown.status).toBe(404);
      expect(firstAppMessage(unknown)).toMatchObject({ code: 'VMM-30100', errorGroup: 'VM_NOT_FOUND', severity: 'ERROR' });
      expect(firstAppMessage(unknown).message).toBe("Failed to perform the operation on the VM with UUID '0b7e7c1a-0000-4000-8000-000000000000', because it is not found.");

      // Held for 3 s: the simulator's 40 ms create is over before the GET on a busy machine.
      prism.simulator.faults.add({ kind: 'slow-task', operation: 'create', extraMs: 3_000, times: 1 });
      const { taskExtId } = await prism.client.createVm(v4VmBody(prism.simulator, 'still-creating'));
      const pending = prism.simulator.inspect().vms.find((vm) => vm.name === 'still-creating');
      const early = await prism.client.request('GET', `${VMM_VMS_PATH}/${pending?.uuid ?? ''}`);
      expect(early.status).toBe(404);
      await prism.client.waitForTask(taskExtId);
      expect((await prism.client.request('GET', `${VMM_VMS_PATH}/${pending?.uuid ?? ''}`)).status).toBe(200);
    });
  });

  describe('GET /vms', () => {
    let names: string[];

    beforeAll(async () => {
      names = ['list-alpha', 'list-beta', 'list-gamma', "list-o'brien"];
      for (const name of names) await prism.client.createReadyVm(v4VmBody(prism.simulator, name));
    });

    it('filters with OData $filter: eq, startswith, contains, and, or, not, quotes doubled', async () => {
      const listed = async (filter: string): Promise<string[]> => {
        const reply = await prism.client.request('GET', `${VMM_VMS_PATH}?$filter=${encodeURIComponent(filter)}&$limit=100`);
        expect(reply.status, reply.text).toBe(200);
        return ((reply.json as V4ListJson).data ?? []).map((vm) => vm.name).sort();
      };
      expect(await listed("name eq 'list-beta'")).toEqual(['list-beta']);
      expect(await listed("startswith(name, 'list-')")).toEqual([...names].sort());
      expect(await listed("startswith(name,'list-') and contains(name,'a')")).toEqual(['list-alpha', 'list-beta', 'list-gamma']);
      expect(await listed("name eq 'list-alpha' or name eq 'list-gamma'")).toEqual(['list-alpha', 'list-gamma']);
      expect(await listed("startswith(name,'list-') and not (name eq 'list-alpha' or name eq 'list-beta')")).toEqual(['list-gamma', "list-o'brien"]);
      expect(await listed("name eq 'list-o''brien'")).toEqual(["list-o'brien"]);
      expect(await listed("startswith(name,'list-') and powerState eq Vmm.Ahv.Config.PowerState'OFF'")).toHaveLength(4);
      expect(await listed("name eq 'nothing-like-this'")).toEqual([]);
    });

    it('answers an empty match without data, and a bad filter or limit with 400', async () => {
      const empty = await prism.client.request('GET', `${VMM_VMS_PATH}?$filter=${encodeURIComponent("name eq 'none'")}`);
      expect(empty.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.ListVmsApiResponse', metadata: { totalAvailableResults: 0 } });
      expect((empty.json as V4ListJson).data).toBeUndefined();
      for (const query of [`$filter=${encodeURIComponent("memory eq '1'")}`, `$filter=${encodeURIComponent("name eq 'x")}`, '$limit=101', '$limit=0', '$page=-1']) {
        const reply = await prism.client.request('GET', `${VMM_VMS_PATH}?${query}`);
        expect(reply.status, query).toBe(400);
        expect(firstAppMessage(reply).errorGroup).toBe('INVALID_ARGUMENT');
      }
    });

    it('pages with $page and $limit (default 50), counting every match and linking the pages', async () => {
      const filter = encodeURIComponent("startswith(name,'list-')");
      const pages: string[][] = [];
      for (let page = 0; page < 3; page += 1) {
        const reply = await prism.client.request('GET', `${VMM_VMS_PATH}?$filter=${filter}&$limit=3&$page=${page}&$orderby=name`);
        const body = reply.json as V4ListJson;
        expect(body.metadata.totalAvailableResults).toBe(4);
        expect(body.metadata.flags).toContainEqual(expect.objectContaining({ name: 'isPaginated', value: true }));
        if (page === 0) expect(body.metadata.links.map((l) => l.rel)).toEqual(['self', 'first', 'next', 'last']);
        pages.push((body.data ?? []).map((vm) => vm.name));
      }
      expect(pages).toEqual([['list-alpha', 'list-beta', 'list-gamma'], ["list-o'brien"], []]);
      const all = (await prism.client.request('GET', VMM_VMS_PATH)).json as V4ListJson;
      expect(all.data?.length).toBe(Math.min(50, all.metadata.totalAvailableResults));
    });
  });

  describe('PUT /vms/{extId}', () => {
    it('needs If-Match (428 without, 412 when stale) and applies the change through a task, changing the ETag', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'put-me'));
      const { vm, etag } = await prism.client.getVm(extId);
      const changed = { ...vm, name: 'put-me-renamed', numSockets: 2, memorySizeBytes: 4 * 1024 ** 3 };

      const missing = await prism.client.request('PUT', `${VMM_VMS_PATH}/${extId}`, changed);
      expect(missing.status).toBe(428);
      expect(firstAppMessage(missing)).toMatchObject({ code: 'PLAT-10004', errorGroup: 'MISSING_ETAG_HEADER' });
      const wrong = await prism.client.request('PUT', `${VMM_VMS_PATH}/${extId}`, changed, { ifMatch: 'not-the-etag' });
      expect(wrong.status).toBe(412);
      expect(firstAppMessage(wrong)).toMatchObject({ code: 'PLAT-10005', errorGroup: 'INVALID_ETAG_HEADER' });
      expect(wrong.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.UpdateVmApiResponse' });

      const accepted = await prism.client.request('PUT', `${VMM_VMS_PATH}/${extId}`, changed, { ifMatch: etag });
      expect(accepted.status).toBe(202);
      expect(accepted.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.UpdateVmApiResponse', data: { $objectType: 'prism.v4.config.TaskReference' } });
      const task = await prism.client.waitForTask((accepted.json as { data: { extId: string } }).data.extId);
      expect(task.status).toBe('SUCCEEDED');

      const after = await prism.client.getVm(extId);
      expect(after.vm).toMatchObject({ name: 'put-me-renamed', numSockets: 2, memorySizeBytes: 4 * 1024 ** 3 });
      expect(after.vm.disks.map((d) => d.extId)).toEqual(vm.disks.map((d) => d.extId));
      expect(after.vm.nics.map((n) => n.extId)).toEqual(vm.nics.map((n) => n.extId));
      expect(after.etag).not.toBe(etag);
      const stale = await prism.client.request('PUT', `${VMM_VMS_PATH}/${extId}`, changed, { ifMatch: etag });
      expect(stale.status).toBe(412);
    });

    it('fails the task of a change sent while another runs with VM_ETAG_MISMATCH: the ETag moves when a task ends', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'put-twice'));
      const { vm, etag } = await prism.client.getVm(extId);
      // The first change must still run when the second arrives, however busy the machine.
      prism.simulator.faults.add({ kind: 'slow-task', extraMs: 1_000, operation: 'update', times: 1 });
      const first = await prism.client.request('PUT', `${VMM_VMS_PATH}/${extId}`, { ...vm, numSockets: 2 }, { ifMatch: etag });
      const second = await prism.client.request('POST', `${VMM_VMS_PATH}/${extId}/$actions/power-on`, undefined, { ifMatch: etag });
      expect([first.status, second.status]).toEqual([202, 202]);
      const taskOf = (reply: typeof first): string => (reply.json as { data: { extId: string } }).data.extId;
      expect((await prism.client.waitForTask(taskOf(first))).status).toBe('SUCCEEDED');
      const failed = await prism.client.waitForTask(taskOf(second));
      expect(failed).toMatchObject({ status: 'FAILED', errorMessages: [{ errorGroup: 'VM_ETAG_MISMATCH' }] });
      expect((await prism.client.getVm(extId)).vm).toMatchObject({ numSockets: 2, powerState: 'OFF' });
    });

    it('keeps disks, NICs and the power state whatever the body says (they have their own endpoints and actions)', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'put-keeps'));
      const task = await prism.client.writeWithEtag('PUT', `${VMM_VMS_PATH}/${extId}`, extId, (vm) => {
        vm.disks = [];
        vm.nics = [];
        vm.powerState = 'ON';
        vm.description = 'described';
      });
      expect(task.status).toBe('SUCCEEDED');
      const { vm } = await prism.client.getVm(extId);
      expect(vm).toMatchObject({ description: 'described', powerState: 'OFF' });
      expect(vm.disks).toHaveLength(1);
      expect(vm.nics).toHaveLength(1);
    });

    it('fails the task with the hot-plug rules on a running VM, as v3 does', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'hotplug', { numSockets: 2 }));
      expect((await prism.client.writeWithEtag('POST', `${VMM_VMS_PATH}/${extId}/$actions/power-on`, extId)).status).toBe('SUCCEEDED');
      const task = await prism.client.writeWithEtag('PUT', `${VMM_VMS_PATH}/${extId}`, extId, (vm) => {
        vm.numSockets = 1;
      });
      expect(task.status).toBe('FAILED');
      expect(task.legacyErrorMessage).toContain('Cannot hot-remove vCPU sockets');
    });
  });

  describe('power actions', () => {
    it('power-on, power-off, power-cycle and reset set the power state through tasks, each needing the ETag', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'power'));
      const action = (name: string): string => `${VMM_VMS_PATH}/${extId}/$actions/${name}`;
      const { etag } = await prism.client.getVm(extId);
      const missing = await prism.client.request('POST', action('power-on'));
      expect(missing.status).toBe(428);

      const on = await prism.client.request('POST', action('power-on'), undefined, { ifMatch: etag });
      expect(on.status).toBe(202);
      expect(on.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.PowerOnVmApiResponse', data: { $objectType: 'prism.v4.config.TaskReference' } });
      await prism.client.waitForTask((on.json as { data: { extId: string } }).data.extId);
      expect((await prism.client.getVm(extId)).vm.powerState).toBe('ON');
      expect((await prism.client.request('POST', action('power-off'), undefined, { ifMatch: etag })).status).toBe(412);

      const states: Record<string, string> = {};
      for (const name of ['power-cycle', 'power-off', 'reset', 'power-off', 'power-cycle']) {
        const task: V4TaskJson = await prism.client.writeWithEtag('POST', action(name), extId);
        expect(task.status, name).toBe('SUCCEEDED');
        states[name] = (await prism.client.getVm(extId)).vm.powerState;
      }
      expect(states).toEqual({ 'power-cycle': 'ON', 'power-off': 'OFF', reset: 'ON' });
    });
  });

  describe('custom attributes', () => {
    it('add-custom-attributes and remove-custom-attributes change them through tasks, each needing the ETag', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'attributes'));
      const action = (name: string): string => `${VMM_VMS_PATH}/${extId}/$actions/${name}`;
      const params = (customAttributes: string[]) => ({ $objectType: 'vmm.v4.ahv.config.UpdateCustomAttributesParams', customAttributes });
      const { vm: before, etag } = await prism.client.getVm(extId);
      expect(before.customAttributes).toBeUndefined();
      expect((await prism.client.request('POST', action('add-custom-attributes'), params([`providerid:${extId}`]))).status).toBe(428);
      const bad = await prism.client.request('POST', action('add-custom-attributes'), { customAttributes: [1] }, { ifMatch: etag });
      expect(bad.status).toBe(400);
      expect(firstAppMessage(bad).message).toContain('customAttributes');

      const added = await prism.client.request('POST', action('add-custom-attributes'), params([`providerid:${extId}`, 'team:a']), { ifMatch: etag });
      expect(added.status).toBe(202);
      expect(added.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.AddVmCustomAttributesApiResponse', data: { $objectType: 'prism.v4.config.TaskReference' } });
      expect((await prism.client.waitForTask((added.json as { data: { extId: string } }).data.extId)).status).toBe('SUCCEEDED');
      const { vm: after, etag: newEtag } = await prism.client.getVm(extId);
      expect(after.customAttributes).toEqual([`providerid:${extId}`, 'team:a']);
      expect(newEtag).not.toBe(etag);
      expect((await prism.client.request('POST', action('remove-custom-attributes'), params(['team:a']), { ifMatch: etag })).status).toBe(412);

      const removed = await prism.client.request('POST', action('remove-custom-attributes'), params(['team:a']), { ifMatch: newEtag });
      expect(removed.json).toMatchObject({ $objectType: 'vmm.v4.ahv.config.RemoveVmCustomAttributesApiResponse' });
      expect((await prism.client.waitForTask((removed.json as { data: { extId: string } }).data.extId)).status).toBe('SUCCEEDED');
      expect((await prism.client.getVm(extId)).vm.customAttributes).toEqual([`providerid:${extId}`]);
    });
  });

  describe('DELETE /vms/{extId}', () => {
    it('needs If-Match, answers with a task, and the VM is gone when it succeeds', async () => {
      const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'delete-me'));
      expect((await prism.client.request('DELETE', `${VMM_VMS_PATH}/${extId}`)).status).toBe(428);
      const task = await prism.client.writeWithEtag('DELETE', `${VMM_VMS_PATH}/${extId}`, extId);
      expect(task).toMatchObject({ status: 'SUCCEEDED', entitiesAffected: [{ extId, rel: 'vmm:ahv:config:vm' }] });
      expect((await prism.client.request('GET', `${VMM_VMS_PATH}/${extId}`)).status).toBe(404);
      expect((await prism.client.request('DELETE', `${VMM_VMS_PATH}/${extId}`, undefined, { ifMatch: 'x' })).status).toBe(404);
    });
  });

  describe('the gateway', () => {
    it('answers the SDK version probe with the newest version it serves', async () => {
      for (const namespace of ['vmm', 'prism']) {
        const reply = await prism.client.request('OPTIONS', `/api/${namespace}/unversioned/info`);
        expect(reply.status).toBe(200);
        expect(reply.json).toEqual({ data: 'v4.2' });
      }
    });

    it('answers an unknown v4 path with 404 in the v4 error shape, and refuses missing credentials with 401', async () => {
      const unknown = await prism.client.request('GET', '/api/vmm/v4.2/ahv/config/templates');
      expect(unknown.status).toBe(404);
      expect(firstAppMessage(unknown).errorGroup).toBe('NOT_FOUND');
      const anonymous = await fetch(`${prism.simulator.url}${VMM_VMS_PATH}`);
      expect(anonymous.status).toBe(401);
    });
  });
});
