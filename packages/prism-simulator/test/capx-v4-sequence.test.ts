// CAPX v1.10.3's machine create and delete against the simulator over verified TLS, call for call: the Go program in
// capx-v4-sequence/ follows docs/capx-v4-sequence.md with prism-go-client v0.8.0's converged v4 client over the v4.2
// SDKs at CAPX's pinned versions (monitoring-go-client, which the Go module proxy does not serve and CAPX never calls,
// is a stub: capx-v4-sequence/monitoring-stub/go.mod). The program fails on any error, any answer the SDK could not
// decode completely, and any answer CAPX would wait or retry on forever. Here the simulator's request log must show
// CAPX's calls in CAPX's order, the VM must carry CAPX's categories, custom attribute, GPU and cloud-init between the
// create and the delete, and be gone with its category after the delete.
//
// With the simulator serving only v4 (`apis: 'v4'`), CAPX does not get past its first call: every reconcile builds the
// v3 client first (nutanixmachine_controller.go:274, helpers.go:1160), and that sends GET /api/nutanix/v3/users/me,
// which such a Prism Central answers 404. That is what the second test asserts CAPX sees, and that it sends nothing else.

import { execFile, spawn } from 'node:child_process';
import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTERS, DEFAULT_IMAGES, categoryExtId, type LoggedRequest, type PrismSimulator } from '../src/index.ts';
import { startFastSimulator } from './prism-client.ts';

const BUILD_SCRIPT = join(import.meta.dirname, 'v4-sdk-client', 'build.sh');
const PE = { ...DEFAULT_CLUSTERS[0] ?? { name: '', uuid: '' }, gpus: [{ type: 'PASSTHROUGH_COMPUTE', deviceId: 8629, deviceName: 'NVIDIA A16', vendorName: 'kNvidia' }] as const };
const MACHINE = { capiCluster: 'wc', name: 'wc-md-0-x7k2p', subnet: 'vlan10-ipam', image: DEFAULT_IMAGES[0]?.name ?? '' };
const BOOTSTRAP = '## template: jinja\n#cloud-config\nhostname: {{ ds.meta_data.hostname }}\n';

/** The program, built by `npm run provision` (the v4 SDK client's build script builds both). */
async function capxProgram(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [BUILD_SCRIPT, '--print-path', 'capx-v4-sequence']);
  const binary = stdout.trim();
  const built = await access(binary, constants.X_OK).then(() => true, () => false);
  if (!built) throw new Error(`${binary} is missing: \`npm run provision -- prism-v4-sdk-client\` builds it (with the v4 SDK client)`);
  return binary;
}

/** One request as the sequence below names it: method, endpoint (the path for the version probe), status, If-Match. */
function label(entry: LoggedRequest): string {
  const what = entry.method === 'OPTIONS' ? `OPTIONS ${entry.path}` : entry.endpoint === 'unknown' ? `${entry.method} ${entry.path}` : entry.endpoint;
  return `${what} ${String(entry.outcome)}${entry.ifMatch ? ' If-Match' : ''}`;
}

const VMS = 'GET /api/vmm/v4.2/ahv/config/vms/{extId} 200';
const VMS_GONE = 'GET /api/vmm/v4.2/ahv/config/vms/\\{extId\\} 404';
const TASK = 'GET /api/prism/v4.2/config/tasks/{extId} 200';
const TASKS = 'GET /api/prism/v4.2/config/tasks 200';
const CATEGORIES = 'GET /api/prism/v4.2/config/categories 200';

/** The labels, with each run of task polls (PGC polls every second until the task ends) as one. */
function sequence(entries: readonly LoggedRequest[]): string[] {
  return entries.map(label).filter((item, i, all) => item !== TASK || all[i - 1] !== TASK);
}

describe("CAPX v1.10.3's v4 machine sequence (prism-go-client's converged v4 client)", () => {
  let binary: string;
  let scratch: string;
  beforeAll(async () => {
    binary = await capxProgram();
    scratch = await mkdtemp(join(tmpdir(), 'capx-v4-sequence-'));
  });
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  async function environment(simulator: PrismSimulator): Promise<NodeJS.ProcessEnv> {
    const ca = join(scratch, `ca-${String(simulator.port)}.pem`);
    await writeFile(ca, simulator.caCertPem ?? '');
    return {
      PATH: process.env.PATH ?? '',
      SSL_CERT_FILE: ca,
      SIM_HOST: '127.0.0.1',
      SIM_PORT: String(simulator.port),
      SIM_USERNAME: simulator.username,
      SIM_PASSWORD: simulator.password,
      CAPI_CLUSTER: MACHINE.capiCluster,
      MACHINE: MACHINE.name,
      PE_NAME: PE.name,
      SUBNET_NAME: MACHINE.subnet,
      IMAGE_NAME: MACHINE.image,
      GPU_NAME: 'NVIDIA A16',
      EXTRA_CATEGORY: 'Environment=Dev',
      BOOTSTRAP_DATA: BOOTSTRAP,
    };
  }

  it('creates the VM as CAPX does (categories, GPU, cloud-init, providerid attribute, ON with an address), then deletes it and its category', async () => {
    const simulator = await startFastSimulator({ tls: true, clusters: [PE] });
    try {
      const child = spawn(binary, [], { env: { ...(await environment(simulator)), PAUSE_AFTER_CREATE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const lines = createInterface({ input: child.stdout });
      const created = await new Promise<string>((resolve, reject) => {
        lines.on('line', (line) => {
          stdout += `${line}\n`;
          const match = /^created ([0-9a-f-]{36});/.exec(line);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        void exited.then((code) => { reject(new Error(`the program exited (${String(code)}) before the create:\n${stdout}\n${stderr}`)); });
      });

      // Between create and delete: the VM as CAPX made it (the test's own two GETs are taken out of the log below).
      const paused = simulator.requestLog().length;
      const vm = simulator.inspect().vms.find((v) => v.uuid === created);
      expect(vm).toMatchObject({ name: MACHINE.name, powerState: 'ON', clusterUuid: PE.uuid, numSockets: 2, numVcpusPerSocket: 1, memorySizeMib: 4096 });
      expect(vm?.categoriesMapping).toEqual({ KubernetesClusterName: [MACHINE.capiCluster], Environment: ['Dev'] });
      const v3 = await getJson<{ spec: { resources: Record<string, unknown> } }>(simulator, `/api/nutanix/v3/vms/${created}`);
      const resources = v3.spec.resources;
      const cloudInit = (resources.guest_customization as { cloud_init: { user_data: string; meta_data: string } }).cloud_init;
      // CAPX strips the jinja line and fills in the hostname (AOS 7.3 workarounds, nutanixmachine_controller.go:1567-1576).
      expect(Buffer.from(cloudInit.user_data, 'base64').toString()).toBe(`#cloud-config\nhostname: ${MACHINE.name}\n`);
      expect(JSON.parse(Buffer.from(cloudInit.meta_data, 'base64').toString())).toEqual({ hostname: MACHINE.name, uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown });
      expect(resources.gpu_list).toEqual([{ mode: 'PASSTHROUGH_COMPUTE', vendor: 'NVIDIA', device_id: 8629, name: 'NVIDIA A16' }]);
      const { data: v4Vm } = await getJson<{ data: { customAttributes?: string[] } }>(simulator, `/api/vmm/v4.2/ahv/config/vms/${created}`);
      expect(v4Vm.customAttributes).toEqual([`providerid:${created}`]);
      expect(stdout).toContain(`call: addresses [10.40.10.`);

      child.stdin.end('\n');
      const code = await exited;
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      expect(stdout.trim().split('\n').at(-1)).toBe('OK');

      // After: the VM is gone, and so is the category CAPX created (Environment=Dev was there before and stays).
      expect(simulator.inspect().vms.map((v) => v.uuid)).not.toContain(created);
      const categories = simulator.inspect().categories;
      expect(categories.find((c) => c.name === 'KubernetesClusterName')?.values ?? []).not.toContain(MACHINE.capiCluster);
      expect(categories.find((c) => c.name === 'Environment')?.values).toContain('Dev');

      // The calls, in CAPX's order (docs/capx-v4-sequence.md §3-§4).
      const log = simulator.requestLog();
      expect(log.slice(paused, paused + 2).map((e) => e.path)).toEqual([`/api/nutanix/v3/vms/${created}`, `/api/vmm/v4.2/ahv/config/vms/${created}`]);
      const calls = sequence([...log.slice(0, paused), ...log.slice(paused + 2)]);
      const deleteAt = calls.indexOf('DELETE /api/vmm/v4.2/ahv/config/vms/{extId} 202 If-Match');
      expect(calls.slice(0, deleteAt + 1)).toEqual([
        'GET /users/me 200', // P0: the v3 client
        'OPTIONS /api/prism/unversioned/info 200', // P2/P3: the cluster's category, created
        CATEGORIES,
        'POST /api/prism/v4.2/config/categories 201',
        'OPTIONS /api/vmm/unversioned/info 200', // A: the VM by name
        'GET /api/vmm/v4.2/ahv/config/vms 200',
        'OPTIONS /api/clustermgmt/unversioned/info 200', // B: the PE and the subnet by name
        'GET /api/clustermgmt/v4.2/config/clusters 200',
        'OPTIONS /api/networking/unversioned/info 200',
        'GET /api/networking/v4.2/config/subnets 200',
        CATEGORIES, // C5: get-or-create the default category again
        CATEGORIES, // C6: the references: the default category, then the additional one
        CATEGORIES,
        'GET /api/clustermgmt/v4.2/config/clusters/{clusterExtId}/physical-gpu-profiles 200', // C8
        'GET /api/clustermgmt/v4.2/config/clusters/{clusterExtId}/virtual-gpu-profiles 200',
        'GET /api/vmm/v4.2/content/images 200', // C9: the image by name, C10: the deletion guard
        TASKS,
        'POST /api/vmm/v4.2/ahv/config/vms 202', // C13: create, wait, GET the VM
        TASK,
        VMS,
        VMS, // D14: the providerid custom attribute
        'POST /api/vmm/v4.2/ahv/config/vms/{extId}/$actions/add-custom-attributes 202 If-Match',
        TASK,
        VMS,
        VMS, // D15: power on, then GET the VM again
        'POST /api/vmm/v4.2/ahv/config/vms/{extId}/$actions/power-on 202 If-Match',
        TASK,
        VMS,
        VMS,
        VMS, // §3.4: the next reconcile finds the VM by UUID and calls nothing else
        VMS, // §4: delete: the VM, its tasks in progress, the ETag, DELETE with If-Match
        TASKS,
        VMS,
        'DELETE /api/vmm/v4.2/ahv/config/vms/{extId} 202 If-Match',
      ]);
      // Then: requeues while the delete task runs (the VM, its tasks), until the VM is 404. When the task ends between
      // a reconcile's GET and its task list, CAPX deletes again and that delete's GET for the ETag is the first 404;
      // a 404 resets the vmm ApiClient's version negotiation, so the next reconcile's GET follows a new OPTIONS
      // (docs/capx-v4-sequence.md §2; the VMM SDK's api_client.go:324-327). A loaded machine makes that branch likely.
      // Then the cluster's deletion removes its category (list, GET for the ETag, DELETE with If-Match) and finds no obsolete one.
      const rest = calls.slice(deleteAt + 1).join('\n');
      expect(rest).toMatch(new RegExp(`^(${VMS}\n${TASKS}\n)*(${VMS_GONE}\nOPTIONS /api/vmm/unversioned/info 200\n)?${VMS_GONE}\n${CATEGORIES}\nGET /api/prism/v4.2/config/categories/\\{extId\\} 200\nDELETE /api/prism/v4.2/config/categories/\\{extId\\} 20[04] If-Match\n${CATEGORIES}$`));
      // The category deleted is the one CAPX created.
      expect(simulator.requestLog().filter((e) => e.method === 'DELETE' && e.path.includes('/categories/')).map((e) => e.path)).toEqual([`/api/prism/v4.2/config/categories/${categoryExtId('KubernetesClusterName', MACHINE.capiCluster)}`]);
    } finally {
      await simulator.stop();
    }
  }, 120_000);

  it('with the simulator serving only v4, CAPX fails at its v3 client (GET /users/me is 404) and sends nothing else', async () => {
    const simulator = await startFastSimulator({ tls: true, clusters: [PE], apis: 'v4' });
    try {
      const { stdout } = await promisify(execFile)(binary, [], { timeout: 60_000, env: { ...(await environment(simulator)), V3_ABSENT: '1' } }).catch((error: unknown) => {
        const failed = error as { stdout?: string; stderr?: string; message: string };
        throw new Error(`the program failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`);
      });
      expect(stdout).toMatch(/call: v3 GET \/users\/me fails: .*404/);
      expect(stdout).toContain('CAPX stops: nutanix prism v3 Client error, requeued (retryable: not an API error, requeued with backoff)');
      expect(sequence(simulator.requestLog())).toEqual(['GET /api/nutanix/v3/users/me 404']);
      expect(simulator.inspect().vms).toEqual([]);
    } finally {
      await simulator.stop();
    }
  }, 120_000);
});

/** A GET over the simulator's TLS, trusting its CA (fetch would need undici's Agent for that). */
async function getJson<T>(simulator: PrismSimulator, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${simulator.url}${path}`, { ca: simulator.caCertPem, auth: `${simulator.username}:${simulator.password}` }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => { resolve(JSON.parse(text) as T); });
    });
    req.on('error', reject);
    req.end();
  });
}
