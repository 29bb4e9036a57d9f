// How testkit provides its control-plane binaries on a machine that has none: the released files from a server in
// the release layout (here a local one on loopback), checked against pinned digests, else a build from source (here a
// tiny fake build step through TESTKIT_BUILD_COMMAND), with progress lines while it runs.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { provideBinaries, type BinaryPaths } from '../src/binaries.ts';

const run = promisify(execFile);
const productionTable = fileURLToPath(new URL('../scripts/control-plane-digests.txt', import.meta.url));
const platform = `linux-${process.arch === 'arm64' ? 'arm64' : 'amd64'}`;
const arch = platform.slice('linux-'.length);
const kcmAddress = `dl.k8s.io/release/v1.36.5/bin/linux/${arch}/kube-controller-manager`;
const kubectlAddress = `dl.k8s.io/release/v1.36.5/bin/linux/${arch}/kubectl`;
const etcdAddress = `github.com/etcd-io/etcd/releases/download/v3.6.16/etcd-v3.6.16-linux-${arch}.tar.gz`;
const etcdMember = `etcd-v3.6.16-linux-${arch}/etcd`;

let root: string;
let fakeBuild: string;
let files: Map<string, Buffer>;
let requests: string[];
let server: Server;
let serverUrl: string;

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const fakeExecutable = (text: string): Buffer => Buffer.from(`#!/bin/sh\necho '${text}'\n`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'testkit-binaries-'));
  // The fake build step: writes an executable that says it was built, after waiting for a file when told to.
  fakeBuild = join(root, 'fake-build.sh');
  await writeFile(fakeBuild, [
    '#!/bin/sh',
    'echo "compiling $1"',
    'if [ -n "${FAKE_BUILD_WAIT_FOR:-}" ]; then',
    '  i=0; while [ ! -e "$FAKE_BUILD_WAIT_FOR" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done',
    'fi',
    `printf '#!/bin/sh\\necho "built %s"\\n' "$1" > "$2"`,
    'chmod +x "$2"',
    '',
  ].join('\n'));
  await chmod(fakeBuild, 0o755);
  server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').slice(1));
    requests.push(path);
    const body = files.get(path);
    if (body) res.writeHead(200, { 'content-length': body.length }).end(body);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

afterEach(() => {
  files = new Map();
  requests = [];
});
files = new Map();
requests = [];

/** The released files in their layout: kube-controller-manager and kubectl as plain files, etcd in its release archive. */
async function releaseFiles(): Promise<{ kcm: Buffer; kubectl: Buffer; etcd: Buffer }> {
  const kcm = fakeExecutable('downloaded kube-controller-manager');
  const kubectl = fakeExecutable('downloaded kubectl');
  const staging = await mkdtemp(join(root, 'archive-'));
  await mkdir(join(staging, dirname(etcdMember)), { recursive: true });
  await writeFile(join(staging, etcdMember), fakeExecutable('downloaded etcd'), { mode: 0o755 });
  await writeFile(join(staging, dirname(etcdMember), 'README.md'), 'etcd\n');
  await run('tar', ['-czf', join(staging, 'etcd.tar.gz'), '-C', staging, dirname(etcdMember)]);
  return { kcm, kubectl, etcd: await readFile(join(staging, 'etcd.tar.gz')) };
}

/** A digest table of the same shape as the committed one, for this test only. */
async function digestTable(rows: [binary: string, address: string, member: string, data: Buffer][]): Promise<string> {
  const path = join(await mkdtemp(join(root, 'table-')), 'digests.txt');
  await writeFile(path, rows.map(([binary, address, member, data]) => `${platform}  ${binary}  ${address}  ${member}  sha256  ${sha256(data)}\n`).join(''));
  return path;
}

async function environment(extra: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  // Nothing of this machine's own setup leaks in: no KUBEBUILDER_ASSETS, no source mode, no mirror.
  const inherited = Object.entries(process.env).filter(([name]) => name !== 'KUBEBUILDER_ASSETS' && !name.startsWith('TESTKIT_') && name !== 'FAKE_BUILD_WAIT_FOR');
  return {
    ...Object.fromEntries(inherited),
    TESTKIT_CACHE_DIR: await mkdtemp(join(root, 'cache-')),
    TESTKIT_BUILD_COMMAND: fakeBuild,
    PROGRESS_INTERVAL_SECONDS: '1',
    ...extra,
  };
}

/** An environment whose digest table pins the three release files, to be downloaded from `baseUrl`. */
async function pinnedEnvironment(release: { kcm: Buffer; kubectl: Buffer; etcd: Buffer }, baseUrl: string): Promise<NodeJS.ProcessEnv> {
  return environment({
    TESTKIT_ASSETS_BASE_URL: baseUrl,
    TESTKIT_ASSETS_DIGESTS: await digestTable([['kube-controller-manager', kcmAddress, '-', release.kcm], ['kubectl', kubectlAddress, '-', release.kubectl], ['etcd', etcdAddress, etcdMember, release.etcd]]),
  });
}

async function says(paths: BinaryPaths): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, path] of Object.entries(paths)) out[name] = (await run(path, [])).stdout.trim();
  return out;
}

test('a good release archive is used: downloaded binaries are checked, installed and cached; kube-apiserver is built (patched)', async () => {
  const { kcm, kubectl, etcd } = await releaseFiles();
  files = new Map([[kcmAddress, kcm], [kubectlAddress, kubectl], [etcdAddress, etcd]]);
  const env = await pinnedEnvironment({ kcm, kubectl, etcd }, serverUrl);
  const lines: string[] = [];
  const paths = await provideBinaries(env, { progress: (line) => lines.push(line) });

  expect(await says(paths)).toEqual({
    'etcd': 'downloaded etcd',
    'kube-apiserver': 'built kube-apiserver',
    'kube-controller-manager': 'downloaded kube-controller-manager',
    'kubectl': 'downloaded kubectl',
  });
  expect(requests.sort()).toEqual([etcdAddress, kcmAddress, kubectlAddress].sort());
  const output = lines.join('\n');
  expect(output).toContain(`download kubectl (${serverUrl}/${kubectlAddress})`);
  expect(output).toMatch(/step \d of 4: download etcd .*: done in \d+ s/);
  expect(output).toContain('kube-apiserver will be built from source: testkit runs it patched');
  const sources = await readFile(join(dirname(paths.kubectl), 'SOURCES'), 'utf8');
  expect(sources).toContain(`kubectl: downloaded from ${serverUrl}/${kubectlAddress} (sha256 ${sha256(kubectl)})`);
  expect(sources).toContain('kube-apiserver: built from source');

  // Cached by version: the next run asks no server and builds nothing.
  requests = [];
  const again: string[] = [];
  expect(await provideBinaries(env, { progress: (line) => again.push(line) })).toEqual(paths);
  expect(requests).toEqual([]);
  expect(again).toEqual([]);
});

test('a corrupted archive is refused with a message that says what to do, and nothing from it is installed', async () => {
  const { kcm, kubectl, etcd } = await releaseFiles();
  const corrupted = Buffer.from(etcd);
  const at = corrupted.length - 10;
  corrupted.writeUInt8(corrupted.readUInt8(at) ^ 0xff, at);
  files = new Map([[kcmAddress, kcm], [kubectlAddress, kubectl], [etcdAddress, corrupted]]);
  const env = await pinnedEnvironment({ kcm, kubectl, etcd }, serverUrl);
  const lines: string[] = [];
  const error = await provideBinaries(env, { progress: (line) => lines.push(line) }).then(() => undefined, (e: unknown) => e as Error);

  expect(error?.message).toContain(`REFUSED ${serverUrl}/${etcdAddress}: its sha256 digest is`);
  expect(error?.message).toContain(sha256(corrupted));
  expect(error?.message).toContain(sha256(etcd));
  expect(error?.message).toContain('run the same command again to retry the download');
  expect(error?.message).toContain('TESTKIT_CONTROL_PLANE_SOURCE=build');
  expect(lines.join('\n')).toContain('REFUSED');
  const { stdout: dir } = await run('bash', [fileURLToPath(new URL('../scripts/build-control-plane.sh', import.meta.url)), '--print-dir'], { env });
  expect(existsSync(join(dir.trim(), 'etcd'))).toBe(false);
  expect(existsSync(join(dir.trim(), 'kube-apiserver'))).toBe(false);
});

test('a wrong digest in the table refuses even an intact file', async () => {
  const { kubectl } = await releaseFiles();
  files = new Map([[kubectlAddress, kubectl]]);
  const env = await environment({
    TESTKIT_ASSETS_BASE_URL: serverUrl,
    TESTKIT_ASSETS_DIGESTS: await digestTable([['kubectl', kubectlAddress, '-', Buffer.from('another kubectl')]]),
  });
  await expect(provideBinaries(env, { progress: () => undefined })).rejects.toThrow(/REFUSED .*kubectl: its sha256 digest is[\s\S]*TESTKIT_CONTROL_PLANE_SOURCE=build/);
});

test('when no download answers, everything is built from source, and the first failure stops further attempts', async () => {
  const { kcm, kubectl, etcd } = await releaseFiles();
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  const env = await pinnedEnvironment({ kcm, kubectl, etcd }, deadUrl);
  const lines: string[] = [];
  const paths = await provideBinaries(env, { progress: (line) => lines.push(line) });

  expect(await says(paths)).toEqual({
    'etcd': 'built etcd',
    'kube-apiserver': 'built kube-apiserver',
    'kube-controller-manager': 'built kube-controller-manager',
    'kubectl': 'built kubectl',
  });
  const output = lines.join('\n');
  expect(lines.filter((line) => /: download .* \.\.\.$/.test(line))).toHaveLength(1);
  expect(output).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+\/.*; kube-controller-manager will be built from source/);
  expect(output).toContain('will be built from source: an earlier download did not answer');
});

test('the committed table pins no digest it could not check: nothing is downloaded, even from a server that answers', async () => {
  const table = await readFile(productionTable, 'utf8');
  const rows = table.split('\n').filter((line) => line.trim() && !line.startsWith('#')).map((line) => line.trim().split(/\s+/));
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect(row).toHaveLength(6);
    expect(row[1]).not.toBe('kube-apiserver');
    expect(row[5]).toMatch(row[4] === 'sha512' ? /^(-|[0-9a-f]{128})$/ : /^(-|[0-9a-f]{64})$/);
  }
  const { kcm, kubectl, etcd } = await releaseFiles();
  files = new Map([[kcmAddress, kcm], [kubectlAddress, kubectl], [etcdAddress, etcd]]);
  const env = await environment({ TESTKIT_ASSETS_BASE_URL: serverUrl });
  const lines: string[] = [];
  const paths = await provideBinaries(env, { progress: (line) => lines.push(line) });
  const built = await says(paths);
  const unpinned = rows.filter((row) => row[0] === platform && row[5] === '-').map((row) => row[1] ?? '');
  for (const binary of unpinned) {
    expect(built[binary]).toBe(`built ${binary}`);
    expect(lines.join('\n')).toContain(`${binary} will be built from source: no pinned digest for ${platform}`);
  }
  if (unpinned.length === 3) expect(requests).toEqual([]);
});

test('a slow build prints which step, which binary and the elapsed time while it runs', async () => {
  const release = join(await mkdtemp(join(root, 'release-')), 'go-on');
  const env = await environment({ TESTKIT_CONTROL_PLANE_SOURCE: 'build', FAKE_BUILD_WAIT_FOR: release });
  const ticks: string[] = [];
  const lines: string[] = [];
  const paths = await provideBinaries(env, {
    progress: (line) => {
      lines.push(line);
      // The first build step waits until two of its progress lines have reached us: they arrive while it runs.
      if (/step 1 of 4: build kube-apiserver \(TESTKIT_BUILD_COMMAND\): \d+ s - compiling kube-apiserver$/.test(line)) ticks.push(line);
      if (ticks.length === 2) void writeFile(release, '');
    },
  });
  expect(ticks).toHaveLength(2);
  expect(await says(paths)).toMatchObject({ 'kube-apiserver': 'built kube-apiserver', 'etcd': 'built etcd' });
  const output = lines.join('\n');
  expect(output).toContain('kubectl will be built from source: TESTKIT_CONTROL_PLANE_SOURCE=build');
  expect(output).toMatch(/step 4 of 4: build etcd \(TESTKIT_BUILD_COMMAND\): done in \d+ s/);
  expect(output).toMatch(/control plane ready in \d+ s/);
});

test('pin-control-plane-digests.sh turns the digests upstream publishes into table rows a download then accepts', async () => {
  const { kcm, kubectl, etcd } = await releaseFiles();
  files = new Map([[kcmAddress, kcm], [kubectlAddress, kubectl], [etcdAddress, etcd]]);
  for (const a of ['amd64', 'arm64']) {
    const other = a === arch ? undefined : fakeExecutable(`the ${a} build`);
    files.set(`dl.k8s.io/release/v1.36.5/bin/linux/${a}/kube-controller-manager.sha256`, Buffer.from(sha256(other ?? kcm)));
    files.set(`dl.k8s.io/release/v1.36.5/bin/linux/${a}/kubectl.sha256`, Buffer.from(`${sha256(other ?? kubectl)}\n`));
  }
  files.set('github.com/etcd-io/etcd/releases/download/v3.6.16/SHA256SUMS', Buffer.from([
    `${sha256(Buffer.from('darwin'))}  etcd-v3.6.16-darwin-arm64.zip`,
    `${sha256(arch === 'amd64' ? etcd : Buffer.from('x'))}  etcd-v3.6.16-linux-amd64.tar.gz`,
    `${sha256(arch === 'arm64' ? etcd : Buffer.from('x'))}  etcd-v3.6.16-linux-arm64.tar.gz`,
    '',
  ].join('\n')));
  const pin = fileURLToPath(new URL('../scripts/pin-control-plane-digests.sh', import.meta.url));
  const { stdout } = await run('bash', [pin], { env: { ...process.env, TESTKIT_ASSETS_BASE_URL: serverUrl } });
  const rows = stdout.trim().split('\n');
  expect(rows).toHaveLength(6);
  expect(rows).toContain(`${platform}  kubectl  ${kubectlAddress}  -  sha256  ${sha256(kubectl)}`);
  expect(rows).toContain(`${platform}  etcd  ${etcdAddress}  ${etcdMember}  sha256  ${sha256(etcd)}`);

  const table = join(await mkdtemp(join(root, 'pinned-')), 'digests.txt');
  await writeFile(table, stdout);
  const env = await environment({ TESTKIT_ASSETS_BASE_URL: serverUrl, TESTKIT_ASSETS_DIGESTS: table });
  const paths = await provideBinaries(env, { progress: () => undefined });
  expect(await says(paths)).toMatchObject({ 'kubectl': 'downloaded kubectl', 'etcd': 'downloaded etcd', 'kube-controller-manager': 'downloaded kube-controller-manager' });
});

test('by default the progress goes to stderr as it happens, which is what the demo and `cluster up` show', async () => {
  const release = join(await mkdtemp(join(root, 'release-')), 'go-on');
  const env = await environment({ TESTKIT_CONTROL_PLANE_SOURCE: 'build', FAKE_BUILD_WAIT_FOR: release });
  const binaries = fileURLToPath(new URL('../src/binaries.ts', import.meta.url));
  const child = execFile(process.execPath, ['--input-type=module', '-e', `
    const { provideBinaries } = await import(${JSON.stringify(binaries)});
    const paths = await provideBinaries();
    console.log(paths.kubectl);
  `], { env });
  let stderr = '';
  let released = false;
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
    // The build is held until a progress line has reached this process's stderr.
    if (!released && /step 1 of 4: build kube-apiserver \(TESTKIT_BUILD_COMMAND\): \d+ s/.test(stderr)) {
      released = true;
      void writeFile(release, '');
    }
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(released).toBe(true);
  expect(code).toBe(0);
  expect(stdout.trim()).toMatch(/\/kubectl$/);
});
