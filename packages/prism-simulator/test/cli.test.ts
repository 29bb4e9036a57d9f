import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const clusterUuid = '0005f8a0-aaaa-4bbb-8ccc-000000000042';

let child: ChildProcessWithoutNullStreams | undefined;
let dir: string | undefined;

afterEach(async () => {
  if (child?.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  child = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function run(args: string[]): ChildProcessWithoutNullStreams {
  child = spawn(process.execPath, ['--conditions=source', cli, ...args]);
  return child;
}

/**
 * Collects stdout until `pattern` shows up (the CLI prints its URL once it listens). It listens rather than
 * iterating, because leaving a for-await loop would close the pipe the CLI still writes to.
 */
function waitForOutput(process: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    process.stdout.on('data', (chunk) => {
      output += String(chunk);
      if (pattern.test(output)) resolve(output);
    });
    process.once('exit', () => { reject(new Error(`the CLI exited without printing ${pattern.source}: ${output}`)); });
  });
}

function httpsStatus(url: string, ca: string, auth: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca, auth, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('the prism-simulator CLI', () => {
  it('serves HTTPS on a free port, writes its CA, prints URL and credentials, and stops on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'prism-simulator-cli-'));
    const caFile = join(dir, 'ca.pem');
    const process = run(['--port', '0', '--tls', '--ca-out', caFile, '--user', 'ops', '--password', 'pw', '--cluster-name', 'lab', '--cluster-uuid', clusterUuid]);
    const output = await waitForOutput(process, /admin: /);
    expect(output).toMatch(/^Prism Central simulator \(v3 and v4\) listening on/);
    const url = /listening on (https:\/\/127\.0\.0\.1:(\d+))/.exec(output);
    expect(url).not.toBeNull();
    expect(Number(url?.[2])).toBeGreaterThan(0);
    expect(output).toContain('username:  ops');
    expect(output).toContain('password:  pw');
    expect(output).toContain(`cluster:   lab ${clusterUuid}`);

    const ca = await readFile(caFile, 'utf8');
    expect(await httpsStatus(`${url?.[1] ?? ''}/api/nutanix/v3/vms/list`, ca, 'ops:pw')).toBe(200);
    expect(await httpsStatus(`${url?.[1] ?? ''}/api/nutanix/v3/vms/list`, ca, 'ops:wrong')).toBe(401);

    process.kill('SIGTERM');
    const [code] = await once(process, 'exit') as [number | null];
    expect(code).toBe(0);
  });

  it('refuses --ca-out without --tls', async () => {
    const process = run(['--port', '0', '--ca-out', '/tmp/never-written.pem']);
    let stderr = '';
    process.stderr.on('data', (chunk) => { stderr += String(chunk); });
    const [code] = await once(process, 'exit') as [number | null];
    expect(code).toBe(1);
    expect(stderr).toMatch(/--ca-out needs --tls/);
  });

  it('takes API keys with --api-key, and with --no-basic-auth refuses Basic credentials', async () => {
    const key = 'ntnx-sa-7Hq2vXk9TzLw4pRm8sYc3bNe6fJd5gUa';
    const process = run(['--port', '0', '--api-key', key, '--api-key', 'second-key', '--no-basic-auth', '--apis', 'v3']);
    const output = await waitForOutput(process, /admin: /);
    expect(output).toMatch(/^Prism Central simulator \(v3 only, v4 answers 404\) listening on/);
    expect(output).toContain('basic auth: off (API keys only)');
    expect(output).not.toContain('password:');
    expect(output).toContain(`api key:   ${key} (X-ntnx-api-key)`);
    expect(output).toContain('api key:   second-key (X-ntnx-api-key)');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? '';
    const list = (headers: Record<string, string>) => fetch(`${url}/api/nutanix/v3/vms/list`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' }).then((r) => r.status);
    expect(await list({ 'x-ntnx-api-key': key })).toBe(200);
    expect(await list({ 'x-ntnx-api-key': 'second-key' })).toBe(200);
    expect(await list({ 'x-ntnx-api-key': 'wrong' })).toBe(401);
    expect(await list({ authorization: `Basic ${Buffer.from('admin:Nutanix/4u').toString('base64')}` })).toBe(401);
    process.kill('SIGTERM');
    await once(process, 'exit');
  });

  it('takes a cluster\'s GPUs and storage containers from --config, keeps them when --cluster-name renames the cluster, and serves them on v3 and v4', async () => {
    dir = await mkdtemp(join(tmpdir(), 'prism-simulator-cli-'));
    const config = join(dir, 'prism.json');
    const containers = [{ name: 'default-container-1', uuid: '5c0e7a10-0000-4000-8000-0000000000c1' }, { name: 'fast-nvme', uuid: '5c0e7a10-0000-4000-8000-0000000000c2' }];
    await writeFile(config, JSON.stringify({
      clusters: [{
        name: 'from-config',
        uuid: clusterUuid,
        storageContainers: containers,
        gpus: [
          { type: 'PASSTHROUGH_COMPUTE', deviceId: 8629, deviceName: 'NVIDIA A16', vendorName: 'kNvidia' },
          { type: 'VIRTUAL', deviceId: 1101, deviceName: 'NVIDIA A16-4Q', vendorName: 'kNvidia', count: 2 },
        ],
      }],
    }));
    const process = run(['--port', '0', '--config', config, '--cluster-name', 'lab']);
    const output = await waitForOutput(process, /admin: /);
    expect(output).toContain(`cluster:   lab ${clusterUuid}\n    storage container: default-container-1 5c0e7a10-0000-4000-8000-0000000000c1\n    storage container: fast-nvme 5c0e7a10-0000-4000-8000-0000000000c2\n`);
    expect(output).toContain('    gpu:       NVIDIA A16 (device id 8629, kNvidia, PASSTHROUGH_COMPUTE) x1\n');
    expect(output).toContain('    gpu:       NVIDIA A16-4Q (device id 1101, kNvidia, VIRTUAL) x2\n');

    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? '';
    const authorization = `Basic ${Buffer.from('admin:Nutanix/4u').toString('base64')}`;
    const hosts = await fetch(`${url}/api/nutanix/v3/hosts/list`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"kind":"host"}' });
    const gpus = ((await hosts.json()) as { entities: { status: { resources: { gpu_list: { device_id: number; mode: string; status: string }[] } } }[] }).entities
      .flatMap((host) => host.status.resources.gpu_list.map(({ device_id, mode, status }) => ({ device_id, mode, status })));
    expect(gpus).toEqual([
      { device_id: 8629, mode: 'PASSTHROUGH_COMPUTE', status: 'UNUSED' },
      { device_id: 1101, mode: 'VIRTUAL', status: 'UNUSED' },
      { device_id: 1101, mode: 'VIRTUAL', status: 'UNUSED' },
    ]);
    const listed = await fetch(`${url}/api/clustermgmt/v4.2/config/storage-containers`, { headers: { authorization } });
    expect(((await listed.json()) as { data: { containerExtId: string; name: string; clusterExtId: string }[] }).data.map(({ containerExtId, name, clusterExtId }) => ({ uuid: containerExtId, name, clusterExtId })))
      .toEqual(containers.map((container) => ({ ...container, clusterExtId: clusterUuid })));
    process.kill('SIGTERM');
    await once(process, 'exit');
  });

  it('refuses a --config GPU with a misspelt field, naming where', async () => {
    dir = await mkdtemp(join(tmpdir(), 'prism-simulator-cli-'));
    const config = join(dir, 'prism.json');
    await writeFile(config, JSON.stringify({ clusters: [{ name: 'lab', uuid: clusterUuid, gpus: [{ type: 'VIRTUAL', deviceID: 1101, deviceName: 'NVIDIA A16-4Q', vendorName: 'kNvidia' }] }] }));
    const process = run(['--port', '0', '--config', config]);
    let stderr = '';
    process.stderr.on('data', (chunk) => { stderr += String(chunk); });
    const [code] = await once(process, 'exit') as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain(`${config} is not a valid simulator configuration`);
    expect(stderr).toContain('clusters.0.gpus.0');
    expect(stderr).toContain('deviceId');
  });

  it('refuses --no-basic-auth without an --api-key', async () => {
    const process = run(['--port', '0', '--no-basic-auth']);
    let stderr = '';
    process.stderr.on('data', (chunk) => { stderr += String(chunk); });
    const [code] = await once(process, 'exit') as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('basicAuth: false needs at least one of apiKeys');
  });
});
