// The requests CAPX v1.7 (prism-go-client v3) makes to create a machine's VM, in its order and with its bodies
// (controllers/helpers.go getOrCreateCategory, GetPEUUID, GetSubnetUUID, GetImage; nutanixmachine_controller.go
// getOrCreateVM; pkg/client WaitForTaskToSucceed), each reply read as the Go client reads it: `goError` decides
// success and error text, `goDecodeProblems` checks the JSON fits the Go structs it is decoded into.

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PrismSimulator } from '../src/index.ts';
import { GO_CATEGORY_KEY_STATUS, GO_CATEGORY_VALUE_STATUS, GO_CLUSTER, GO_IMAGE, GO_SUBNET, GO_TASK, GO_VM, goDecodeProblems, goError, type GoType } from './go-client.ts';
import { PrismTestClient } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';

/** CAPX's constants (api/v1beta1/nutanix_types.go). */
const CATEGORY_KEY = 'KubernetesClusterName';
const CATEGORY_DESCRIPTION = 'Managed by CAPX';

/** A prism-go-client call: the error text it returns (undefined on success) and the decoded body. */
interface GoCall {
  error: string | undefined;
  body: Record<string, unknown>;
}

class CapxLikeClient {
  readonly calls: string[] = [];
  private readonly http: PrismTestClient;

  constructor(http: PrismTestClient) {
    this.http = http;
  }

  /** One `op.client.Do`: the request, then CheckResponse, then json.Unmarshal into `type` (on success only). */
  async do(method: string, path: string, body: unknown, type: GoType | undefined): Promise<GoCall> {
    this.calls.push(`${method} ${path}`);
    const reply = await this.http.request(method, path, body);
    const error = goError(reply);
    if (error === undefined && type !== undefined) {
      const problems = goDecodeProblems(reply.json, type);
      if (problems.length > 0) throw new Error(`json.Unmarshal of ${method} ${path} fails: ${problems.join('; ')}`);
    }
    return { error, body: (reply.json ?? {}) as Record<string, unknown> };
  }

  /** helpers.go getOrCreateCategory: key lookup, key create, value lookup, value create. */
  async getOrCreateCategory(key: string, value: string): Promise<Record<string, unknown>> {
    let categoryKey = await this.do('GET', `/categories/${key}`, undefined, GO_CATEGORY_KEY_STATUS);
    if (categoryKey.error !== undefined) {
      if (!categoryKey.error.includes('ENTITY_NOT_FOUND')) throw new Error(`failed to retrieve category with key ${key}. error: ${categoryKey.error}`);
      categoryKey = await this.do('PUT', `/categories/${key}`, { description: CATEGORY_DESCRIPTION, name: key }, GO_CATEGORY_KEY_STATUS);
      if (categoryKey.error !== undefined) throw new Error(`failed to create category with key ${key}. error: ${categoryKey.error}`);
    }
    const keyName = categoryKey.body.name as string;
    let categoryValue = await this.getCategoryValue(keyName, value);
    if (categoryValue === undefined) {
      const created = await this.do('PUT', `/categories/${keyName}/${value}`, { description: CATEGORY_DESCRIPTION, value }, GO_CATEGORY_VALUE_STATUS);
      if (created.error !== undefined) throw new Error(`failed to create category value ${value} in category key ${key}: ${created.error}`);
      categoryValue = created.body;
    }
    return categoryValue;
  }

  /** helpers.go getCategoryValue: CATEGORY_NAME_VALUE_MISMATCH means "not there", any other error is fatal. */
  async getCategoryValue(key: string, value: string): Promise<Record<string, unknown> | undefined> {
    const reply = await this.do('GET', `/categories/${key}/${value}`, undefined, GO_CATEGORY_VALUE_STATUS);
    if (reply.error === undefined) return reply.body;
    if (!reply.error.includes('CATEGORY_NAME_VALUE_MISMATCH')) throw new Error(`failed to retrieve category value ${value} in category ${key}. error: ${reply.error}`);
    return undefined;
  }

  /** GET by UUID of a cluster, subnet or image: any error is fatal, ENTITY_NOT_FOUND gets its own message. */
  async getByUuid(kind: 'cluster' | 'subnet' | 'image', uuid: string, type: GoType): Promise<Record<string, unknown>> {
    const reply = await this.do('GET', `/${kind}s/${uuid}`, undefined, type);
    if (reply.error !== undefined) throw new Error(`${reply.error.includes('ENTITY_NOT_FOUND') ? 'failed to find' : 'failed to get'} ${kind} with UUID ${uuid}: ${reply.error}`);
    return reply.body;
  }

  /** pkg/client WaitForTaskToSucceed: GET /tasks/{uuid} until SUCCEEDED; FAILED or INVALID_UUID is an error. */
  async waitForTaskToSucceed(taskUuid: string): Promise<Record<string, unknown>> {
    for (let poll = 0; poll < 400; poll += 1) {
      const task = await this.do('GET', `/tasks/${taskUuid}`, undefined, GO_TASK);
      if (task.error !== undefined) throw new Error(`failed to get task ${taskUuid}: ${task.error}`);
      const status = task.body.status as string;
      if (status === 'SUCCEEDED') return task.body;
      if (status === 'FAILED' || status === 'INVALID_UUID') throw new Error(`task ${taskUuid} failed: ${String(task.body.error_detail)}`);
      await sleep(5);
    }
    throw new Error(`task ${taskUuid} did not finish`);
  }
}

/** nutanixmachine_controller.go getOrCreateVM, from the category lookups to the VM read after its task. */
async function createMachineVm(capx: CapxLikeClient, simulator: PrismSimulator, clusterName: string, vmName: string): Promise<{ vm: Record<string, unknown>; vmUuid: string }> {
  // getMachineCategoryIdentifiers: GetOrCreateCategories for the default CAPI category.
  await capx.getOrCreateCategory(CATEGORY_KEY, clusterName);

  // GetSubnetAndPEUUIDs (by UUID), then the image of the system disk (GetImage by UUID, ImageMarkedForDeletion).
  const peUuid = simulator.clusters[0]?.uuid ?? '';
  const subnetUuid = simulator.subnets[0]?.uuid ?? '';
  const imageUuid = simulator.images[0]?.uuid ?? '';
  const pe = await capx.getByUuid('cluster', peUuid, GO_CLUSTER);
  const subnet = await capx.getByUuid('subnet', subnetUuid, GO_SUBNET);
  const image = await capx.getByUuid('image', imageUuid, GO_IMAGE);
  expect((pe.metadata as { uuid: string }).uuid).toBe(peUuid);
  expect((subnet.metadata as { uuid: string }).uuid).toBe(subnetUuid);
  const imageState = (image.status as { state: string }).state;
  expect(imageState === 'DELETE_PENDING' || imageState === 'DELETE_IN_PROGRESS').toBe(false);

  // GetCategoryVMSpec: every category value must be found again, into a flat key -> value map.
  const value = await capx.getCategoryValue(CATEGORY_KEY, clusterName);
  if (value === undefined) throw new Error(`category value ${clusterName} not found in category ${CATEGORY_KEY}`);
  const categories = { [value.name as string]: value.value as string };

  // CreateVM with the body prism-go-client serialises (omitempty fields left out).
  const userData = Buffer.from('#cloud-config\nhostname: machine-0\n').toString('base64');
  const created = await capx.do('POST', '/vms', {
    metadata: { kind: 'vm', spec_version: 1, categories },
    spec: {
      cluster_reference: { kind: 'cluster', uuid: peUuid },
      name: vmName,
      resources: {
        disk_list: [{ data_source_reference: { kind: 'image', uuid: imageUuid }, disk_size_mib: 40960 }],
        guest_customization: { cloud_init: { user_data: userData }, is_overridable: true },
        hardware_clock_timezone: 'UTC',
        memory_size_mib: 4096,
        nic_list: [{ subnet_reference: { kind: 'subnet', uuid: subnetUuid } }],
        num_sockets: 2,
        num_vcpus_per_socket: 1,
        power_state: 'ON',
        boot_config: { boot_type: 'LEGACY' },
      },
    },
  }, GO_VM);
  if (created.error !== undefined) throw new Error(`failed to create VM ${vmName}. error: ${created.error}`);
  const vmUuid = (created.body.metadata as { uuid: string }).uuid;
  // GetTaskUUIDFromVM takes a string here (and a one-element list from GET).
  const taskUuid = (created.body.status as { execution_context: { task_uuid: unknown } }).execution_context.task_uuid;
  if (typeof taskUuid !== 'string' || taskUuid === '') throw new Error('no task uuid after POST /vms');
  await capx.waitForTaskToSucceed(taskUuid);

  // FindVMByUUID after the task, and the next reconcile's check of name and task.
  const found = await capx.do('GET', `/vms/${vmUuid}`, undefined, GO_VM);
  if (found.error !== undefined) throw new Error(`Failed to find VM by vmUUID ${vmUuid}: ${found.error}`);
  return { vm: found.body, vmUuid };
}

describe('a CAPX-shaped machine creation', () => {
  const prism = useFastSimulator({}, (simulator) => new CapxLikeClient(new PrismTestClient(simulator)));

  it('creates the category, finds cluster, subnet and image by UUID, creates the VM and reads it back', async () => {
    const { vm, vmUuid } = await createMachineVm(prism.client, prism.simulator, 'capx-c1', 'capx-c1-md-0-abcde');
    expect(prism.client.calls).toEqual([
      `GET /categories/${CATEGORY_KEY}`,
      `PUT /categories/${CATEGORY_KEY}`,
      `GET /categories/${CATEGORY_KEY}/capx-c1`,
      `PUT /categories/${CATEGORY_KEY}/capx-c1`,
      `GET /clusters/${prism.simulator.clusters[0]?.uuid ?? ''}`,
      `GET /subnets/${prism.simulator.subnets[0]?.uuid ?? ''}`,
      `GET /images/${prism.simulator.images[0]?.uuid ?? ''}`,
      `GET /categories/${CATEGORY_KEY}/capx-c1`,
      'POST /vms',
      ...prism.client.calls.filter((call) => call.startsWith('GET /tasks/')),
      `GET /vms/${vmUuid}`,
    ]);
    expect(vm).toMatchObject({
      metadata: { kind: 'vm', uuid: vmUuid, categories: { [CATEGORY_KEY]: 'capx-c1' }, categories_mapping: { [CATEGORY_KEY]: ['capx-c1'] } },
      spec: { name: 'capx-c1-md-0-abcde', resources: { power_state: 'ON', num_sockets: 2, memory_size_mib: 4096 } },
      status: { state: 'COMPLETE', resources: { power_state: 'ON' } },
    });
    const taskUuids = (vm.status as { execution_context: { task_uuid: unknown } }).execution_context.task_uuid;
    expect(Array.isArray(taskUuids) && taskUuids.length === 1).toBe(true);
  });

  it('finds the category on the next machine of the cluster and creates nothing but the VM', async () => {
    prism.client.calls.length = 0;
    const { vmUuid } = await createMachineVm(prism.client, prism.simulator, 'capx-c1', 'capx-c1-md-0-fghij');
    expect(prism.client.calls.slice(0, 2)).toEqual([`GET /categories/${CATEGORY_KEY}`, `GET /categories/${CATEGORY_KEY}/capx-c1`]);
    expect(prism.client.calls.filter((call) => call.startsWith('PUT '))).toEqual([]);
    expect(prism.simulator.inspect().vms.filter((vm) => vm.categories[CATEGORY_KEY] === 'capx-c1').map((vm) => vm.uuid)).toContain(vmUuid);
    expect(prism.simulator.inspect().categories.find((c) => c.name === CATEGORY_KEY)).toEqual({ name: CATEGORY_KEY, description: CATEGORY_DESCRIPTION, values: ['capx-c1'] });
  });

  it('on cluster deletion cannot remove the value while VMs carry it, as CAPX (NCN-101935) expects', async () => {
    const refused = await prism.client.do('DELETE', `/categories/${CATEGORY_KEY}/capx-c1`, undefined, undefined);
    expect(refused.error).toContain('CATEGORY_VALUE_IN_USE');
    // A second cluster's machines create a second value under the existing key.
    await createMachineVm(prism.client, prism.simulator, 'capx-c2', 'capx-c2-md-0-klmno');
    expect(prism.simulator.inspect().categories.find((c) => c.name === CATEGORY_KEY)?.values).toEqual(['capx-c1', 'capx-c2']);
  });
});
