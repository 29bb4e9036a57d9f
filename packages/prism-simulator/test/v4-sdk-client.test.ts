// Nutanix's official v4.2 Go SDKs (vmm-go-client/v4, prism-go-client/v4, clustermgmt-go-client/v4, networking-go-client/v4), built from the Go module proxy, against
// the simulator over verified TLS: the program in v4-sdk-client/ creates a VM (and repeats the create with the same
// NTNX-Request-Id), polls the task, lists with $filter, gets, updates with If-Match, changes its disks and NICs,
// power-cycles and deletes, lists categories and reads a VM's categories through them, creates and deletes a
// category, resolves clusters, storage containers, subnets and images as CAPX does (with the clustermgmt and
// networking SDKs too), and fails on anything the SDK cannot decode. Its build is cached per version of its sources.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findProvisionedTool } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_IMAGES, DEFAULT_SUBNETS, type PrismSimulator, type SubnetSeed } from '../src/index.ts';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFastSimulator } from './prism-client.ts';

const run = promisify(execFile);

const OVERLAY_SUBNET: SubnetSeed = { name: 'overlay-sdk', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f0a', cidr: '172.16.0.0/16', ipam: true, type: 'OVERLAY', vpcUuid: 'd1e2f3a4-0000-4000-8000-00000000c0de' };

/** A v3 call over the simulator's TLS, trusting its CA (fetch would need undici's Agent for that). */
function v3Call(simulator: PrismSimulator, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${simulator.url}/api/nutanix/v3${path}`,
      { method, ca: simulator.caCertPem, auth: `${simulator.username}:${simulator.password}`, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => { resolve(JSON.parse(text) as Record<string, unknown>); });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('the official v4 Go SDK against the simulator', () => {
  let simulator: PrismSimulator;
  let binary: string;
  let scratch: string;

  beforeAll(async () => {
    // Built once per machine by `npm run provision`, before any test runs.
    binary = await findProvisionedTool('prism-v4-sdk-client');
    // The defaults, and an overlay subnet for the inventory reads to find.
    simulator = await startFastSimulator({ tls: true, subnets: [...DEFAULT_SUBNETS, OVERLAY_SUBNET] });
    scratch = await mkdtemp(join(tmpdir(), 'v4-sdk-client-'));
    await writeFile(join(scratch, 'ca.pem'), simulator.caCertPem ?? '');
  });
  afterAll(async () => {
    await simulator.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('creates, lists with $filter, gets, updates with If-Match, changes disks and NICs, power-cycles and deletes a VM, reads categories, and resolves clusters, storage containers, subnets and images, decoding every answer', async () => {
    const [image, iso] = DEFAULT_IMAGES;
    const [subnet, otherSubnet] = DEFAULT_SUBNETS.filter((s) => s.ipam);
    const dhcp = DEFAULT_SUBNETS.find((s) => !s.ipam);
    // What the SDK's own create does not exercise, made over v3 for it to read: UEFI, a CD-ROM, a category, a DHCP
    // address the running guest learned.
    const accepted = await v3Call(simulator, 'POST', '/vms', {
      metadata: { kind: 'vm', categories: { Environment: 'Dev' } },
      spec: {
        name: 'made-over-v3',
        resources: {
          power_state: 'ON',
          boot_config: { boot_type: 'UEFI' },
          disk_list: [
            { data_source_reference: { kind: 'image', uuid: image?.uuid ?? '' } },
            { device_properties: { device_type: 'CDROM' }, data_source_reference: { kind: 'image', uuid: iso?.uuid ?? '' } },
          ],
          nic_list: [{ subnet_reference: { kind: 'subnet', uuid: subnet?.uuid ?? '' } }, { subnet_reference: { kind: 'subnet', uuid: dhcp?.uuid ?? '' } }],
        },
      },
    });
    const v3Vm = (accepted.metadata as { uuid: string }).uuid;
    const taskUuid = (accepted.status as { execution_context: { task_uuid: string } }).execution_context.task_uuid;
    let task: Record<string, unknown> = {};
    for (let poll = 0; poll < 400 && task.status !== 'SUCCEEDED' && task.status !== 'FAILED'; poll += 1) {
      task = await v3Call(simulator, 'GET', `/tasks/${taskUuid}`);
      await sleep(5);
    }
    expect(task.status).toBe('SUCCEEDED');
    const { stdout } = await run(binary, [], {
      timeout: 120_000,
      env: {
        PATH: process.env.PATH ?? '',
        SSL_CERT_FILE: join(scratch, 'ca.pem'),
        SIM_HOST: '127.0.0.1',
        SIM_PORT: String(simulator.port),
        SIM_USERNAME: simulator.username,
        SIM_PASSWORD: simulator.password,
        SIM_CLUSTER: simulator.clusters[0]?.uuid ?? '',
        SIM_IMAGE: image?.uuid ?? '',
        SIM_SUBNET: subnet?.uuid ?? '',
        SIM_OTHER_SUBNET: otherSubnet?.uuid ?? '',
        SIM_V3_VM: v3Vm,
        SIM_CLUSTER_NAME: simulator.clusters[0]?.name ?? '',
        SIM_PRISM_CENTRAL: simulator.prismCentral.uuid,
        SIM_SUBNET_NAME: subnet?.name ?? '',
        SIM_OVERLAY_SUBNET: OVERLAY_SUBNET.uuid,
        SDK_LOG_FILE: join(scratch, 'sdk.log'),
      },
    }).catch((error: unknown) => {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`the SDK client failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`);
    });
    expect(stdout.trim().split('\n').at(-1)).toBe('OK');
    expect(stdout).toContain('CreateVm repeated with the same NTNX-Request-Id: the same task');

    expect(stdout).toContain('AddVmCustomAttributes and RemoveVmCustomAttributes with If-Match: providerid:<extId> added, then removed');
    expect(stdout).toMatch(/ListTasks with entitiesAffected\/any\(\.\.\.\): none in progress, \d+ in all/);
    expect(stdout).toContain('CreateDisk and UpdateDiskById with the VM\'s ETag: two disks, the new one grown to 2 GiB');
    expect(stdout).toContain('CreateNic, UpdateNicById to another subnet and DeleteNicById with the VM\'s ETag');
    expect(stdout).toContain('GetVmById of a VM made over v3: UEFI, a CD-ROM, a category, a learned address, ON');
    expect(stdout).toContain('ListCategories $filter="key eq \'Environment\'": 5 values');
    expect(stdout).toContain("the VM's categories, read through the categories API: Environment=Dev");
    expect(stdout).toContain('CreateCategory SdkCheck=created, GetCategoryById with its ETag, DeleteCategoryById refused without If-Match, then with it: gone');
    expect(stdout).toContain('ListClusters: one AOS cluster and the Prism Central (PRISM_CENTRAL); by name; GetClusterById; unknown extId 404');
    expect(stdout).toMatch(/ListStorageContainers by clusterExtId and containerExtId: SelfServiceContainer [0-9a-f-]{36}; GetStorageContainerById/);
    expect(stdout).toContain(`GetSubnetById: OVERLAY in VPC ${OVERLAY_SUBNET.vpcUuid ?? ''}`);
    expect(stdout).toContain(`ListImages paged one by one, newest first: ${DEFAULT_IMAGES.length} images`);

    // What the simulator saw: the v3 create and two v4 creates, one VM made over v4 (now deleted).
    const inspection = simulator.inspect();
    expect(inspection.createRequests).toBe(3);
    expect(inspection.vms.map((vm) => vm.name)).toEqual(['made-over-v3']);
    const v4Errors = inspection.requests.filter((r) => r.endpoint !== 'unknown' && typeof r.outcome === 'number' && r.outcome >= 400);
    expect(v4Errors.map((r) => `${r.endpoint} ${String(r.outcome)}`).sort()).toEqual([
      'DELETE /api/prism/v4.2/config/categories/{extId} 428',
      'GET /api/clustermgmt/v4.2/config/clusters/{extId} 404',
      'GET /api/prism/v4.2/config/categories/{extId} 404',
      'GET /api/vmm/v4.2/ahv/config/vms/{extId} 404',
      'PUT /api/vmm/v4.2/ahv/config/vms/{extId} 412',
    ]);
  });
});
