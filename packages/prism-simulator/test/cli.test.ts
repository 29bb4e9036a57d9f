import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
    const process = run(['--port', '0', '--api-key', key, '--api-key', 'second-key', '--no-basic-auth']);
    const output = await waitForOutput(process, /admin: /);
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

  it('refuses --no-basic-auth without an --api-key', async () => {
    const process = run(['--port', '0', '--no-basic-auth']);
    let stderr = '';
    process.stderr.on('data', (chunk) => { stderr += String(chunk); });
    const [code] = await once(process, 'exit') as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('basicAuth: false needs at least one of apiKeys');
  });
});
