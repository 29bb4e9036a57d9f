import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { base64, createKeyPair, singleContext, temporaryDirectory, rejection, writeKubeconfig, type KeyPair } from '../../../test/kubeconfig-fixtures.ts';
import type { ClusterAuth } from './cluster-auth.ts';
import { loadClusterAuth, type LoadOptions } from './load-cluster-auth.ts';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

/**
 * A credential plugin: records each run (its KUBERNETES_EXEC_INFO and one env variable) in `runs`, then prints
 * `response.json`, which the test rewrites between runs.
 */
const PLUGIN = `#!/usr/bin/env node
const { appendFileSync, readFileSync } = require('node:fs');
const dir = process.env.PLUGIN_DIR;
appendFileSync(dir + '/runs', JSON.stringify({ info: JSON.parse(process.env.KUBERNETES_EXEC_INFO), greeting: process.env.PLUGIN_GREETING ?? null }) + '\\n');
process.stdout.write(readFileSync(dir + '/response.json'));
`;

let temporary: Awaited<ReturnType<typeof temporaryDirectory>>;
let dir: string;
let ca: KeyPair;
let client: KeyPair;
let other: KeyPair;
let kubeconfig: string;
let counter = 0;
/** The plugin's directory of this test: responses and the run log. */
let pluginDir: string;

beforeAll(async () => {
  temporary = await temporaryDirectory();
  dir = temporary.path;
  ca = await createKeyPair(join(dir, 'pki'), 'ca');
  client = await createKeyPair(join(dir, 'pki'), 'client');
  other = await createKeyPair(join(dir, 'pki'), 'other');
  await writeFile(join(dir, 'plugin.js'), PLUGIN);
});
afterAll(async () => {
  await temporary.remove();
});
beforeEach(async () => {
  counter++;
  pluginDir = join(dir, `case-${counter}`);
  kubeconfig = join(pluginDir, 'config');
  await mkdir(pluginDir);
});
afterEach(() => {
  vi.useRealTimers();
});

const environment = (): Record<string, string> => ({ PLUGIN_DIR: pluginDir, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` });

async function respond(status: object, apiVersion = V1): Promise<void> {
  await writeFile(join(pluginDir, 'response.json'), JSON.stringify({ apiVersion, kind: 'ExecCredential', status }));
}
async function runs(): Promise<{ info: unknown; greeting: string | null }[]> {
  const text = await readFile(join(pluginDir, 'runs'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { info: unknown; greeting: string | null });
}
async function loadWithExec(exec: object, options: LoadOptions = {}, cluster: object = { server: 'https://api.example:6443' }): Promise<ClusterAuth> {
  await writeKubeconfig(kubeconfig, singleContext(cluster, { exec }));
  return loadClusterAuth({ kubeconfig, env: environment(), ...options });
}
const pluginExec = (extra: object = {}): object => ({
  apiVersion: V1,
  interactiveMode: 'Never',
  command: process.execPath,
  args: [join(dir, 'plugin.js')],
  ...extra,
});

describe('exec plugins', () => {
  it('runs the command with its args and env over the process env, and passes the ExecCredential request', async () => {
    await respond({ token: 'exec-token' });
    const auth = await loadWithExec(pluginExec({ env: [{ name: 'PLUGIN_GREETING', value: 'hello' }] }));
    expect(await auth.headers()).toEqual({ authorization: 'Bearer exec-token' });
    expect(await runs()).toEqual([{ info: { apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false } }, greeting: 'hello' }]);
  });

  it('gives the cluster to plugins that ask for it (provideClusterInfo), with the exec extension as config', async () => {
    await respond({ token: 't' }, V1BETA1);
    const cluster = {
      server: 'https://api.example:6443',
      'certificate-authority-data': base64(ca.cert),
      'tls-server-name': 'kubernetes.internal',
      extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'prod' } }],
    };
    await loadWithExec({ apiVersion: V1BETA1, command: process.execPath, args: [join(dir, 'plugin.js')], provideClusterInfo: true }, {}, cluster);
    expect((await runs())[0]?.info).toEqual({
      apiVersion: V1BETA1,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: { server: 'https://api.example:6443', 'tls-server-name': 'kubernetes.internal', 'certificate-authority-data': base64(ca.cert), config: { audience: 'prod' } },
      },
    });
  });

  it('caches the credential until its expirationTimestamp, then runs the plugin again, once for concurrent requests', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await respond({ token: 'first', expirationTimestamp: new Date(Date.now() + 3_600_000).toISOString() });
    const auth = await loadWithExec(pluginExec());
    expect(await auth.headers()).toEqual({ authorization: 'Bearer first' });
    expect(await auth.headers()).toEqual({ authorization: 'Bearer first' });
    expect(await runs()).toHaveLength(1);

    await respond({ token: 'second', expirationTimestamp: new Date(Date.now() + 7_200_000).toISOString() });
    vi.setSystemTime(Date.now() + 3_600_000);
    const concurrent = await Promise.all([auth.headers(), auth.headers(), auth.headers()]);
    expect(concurrent).toEqual(Array(3).fill({ authorization: 'Bearer second' }));
    expect(await runs()).toHaveLength(2);
  });

  it('without expirationTimestamp caches until refresh() (a 401)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await respond({ token: 'first' });
    const auth = await loadWithExec(pluginExec());
    vi.setSystemTime(Date.now() + 30 * 86_400_000);
    await respond({ token: 'second' });
    expect(await auth.headers()).toEqual({ authorization: 'Bearer first' });
    await auth.refresh();
    expect(await auth.headers()).toEqual({ authorization: 'Bearer second' });
    expect(await runs()).toHaveLength(2);
  });

  it('a client certificate from the plugin becomes the TLS client certificate; a different one a new tls object', async () => {
    await respond({ clientCertificateData: client.cert.toString(), clientKeyData: client.key.toString() });
    const auth = await loadWithExec(pluginExec(), {}, { server: 'https://api.example:6443', 'certificate-authority-data': base64(ca.cert), 'tls-server-name': 'k8s' });
    const first = auth.tls;
    expect(first).toEqual({ ca: ca.cert, cert: client.cert, key: client.key, servername: 'k8s' });
    expect(await auth.headers()).toEqual({});
    await auth.refresh();
    expect(auth.tls).toBe(first);
    await respond({ clientCertificateData: other.cert.toString(), clientKeyData: other.key.toString() });
    await auth.refresh();
    expect(auth.tls).not.toBe(first);
    expect(auth.tls).toEqual({ ca: ca.cert, cert: other.cert, key: other.key, servername: 'k8s' });
  });

  it('resolves a command given as a relative path against the kubeconfig, and finds a bare name in PATH', async () => {
    await respond({ token: 'from-script' });
    await writeFile(join(pluginDir, 'credential-helper'), PLUGIN);
    await chmod(join(pluginDir, 'credential-helper'), 0o755);
    const relative = await loadWithExec({ apiVersion: V1, interactiveMode: 'IfAvailable', command: './credential-helper' });
    expect(await relative.headers()).toEqual({ authorization: 'Bearer from-script' });
    const inPath = await loadWithExec({ apiVersion: V1, interactiveMode: 'Never', command: 'credential-helper' }, {
      env: { ...environment(), PATH: `${pluginDir}:${environment().PATH ?? ''}` },
    });
    expect(await inPath.headers()).toEqual({ authorization: 'Bearer from-script' });
  });

  it('is not run for a user who also has a token, basic auth or a client certificate (as in client-go)', async () => {
    await writeKubeconfig(kubeconfig, singleContext({ server: 'https://api.example:6443' }, { token: 'static', exec: { apiVersion: V1, interactiveMode: 'Never', command: 'no-such-plugin' } }));
    const auth = await loadClusterAuth({ kubeconfig, env: environment() });
    expect(await auth.headers()).toEqual({ authorization: 'Bearer static' });
  });
});

describe('exec plugin failures', () => {
  const failing = (script: string): object => ({ apiVersion: V1, interactiveMode: 'Never', command: process.execPath, args: ['-e', script] });

  it('a non-zero exit: the command, the code and the first lines of stderr, never stdout', async () => {
    const script = `console.log(JSON.stringify({ status: { token: 'leaked-token' } })); console.error('login failed: refresh token expired'); for (let i = 1; i <= 20; i++) console.error('detail ' + i); process.exit(3);`;
    const error = await rejection(loadWithExec(failing(script)));
    expect(error.message).toBe(
      `exec plugin "${process.execPath}" of user "main" in ${kubeconfig} failed with exit code 3; stderr:\n  login failed: refresh token expired\n` +
        Array.from({ length: 9 }, (_, i) => `  detail ${i + 1}`).join('\n'),
    );
    expect(error.message).not.toContain('leaked-token');
  });

  it('output that is no ExecCredential, or the wrong one', async () => {
    const what = `exec plugin "${process.execPath}" of user "main" in ${kubeconfig}`;
    const notJson = await rejection(loadWithExec(failing(`process.stdout.write('token=leaked-token')`)));
    expect(notJson.message).toBe(`${what} printed no JSON on stdout (18 bytes): it must print an ExecCredential`);
    const print = (value: object): object => failing(`process.stdout.write(${JSON.stringify(JSON.stringify(value))})`);
    await expect(loadWithExec(print({ kind: 'Secret' }))).rejects.toThrow(`${what} printed JSON that is not an ExecCredential`);
    await expect(loadWithExec(print({ apiVersion: V1BETA1, kind: 'ExecCredential', status: { token: 't' } }))).rejects.toThrow(
      `${what} is configured for apiVersion ${V1} but returned ${V1BETA1}`,
    );
    await expect(loadWithExec(print({ apiVersion: V1, kind: 'ExecCredential' }))).rejects.toThrow(`${what} returned an ExecCredential without status`);
    await expect(loadWithExec(print({ apiVersion: V1, kind: 'ExecCredential', status: {} }))).rejects.toThrow(
      `${what} returned neither a token nor a client certificate and key`,
    );
    await expect(loadWithExec(print({ apiVersion: V1, kind: 'ExecCredential', status: { clientCertificateData: client.cert.toString() } }))).rejects.toThrow(
      `${what} returned only one of clientCertificateData and clientKeyData; it must return both`,
    );
    await expect(
      loadWithExec(print({ apiVersion: V1, kind: 'ExecCredential', status: { clientCertificateData: client.cert.toString(), clientKeyData: other.key.toString() } })),
    ).rejects.toThrow(`${what} returned a client certificate and key that TLS cannot use`);
    await expect(loadWithExec(print({ apiVersion: V1, kind: 'ExecCredential', status: { token: 't', expirationTimestamp: 'tomorrow' } }))).rejects.toThrow(
      `${what} returned status.expirationTimestamp that is not an RFC 3339 time`,
    );
  });

  it('a command that is not installed: its installHint', async () => {
    const exec = { apiVersion: V1, interactiveMode: 'Never', command: 'kubelogin-not-installed', installHint: 'Install kubelogin: https://example/kubelogin' };
    await expect(loadWithExec(exec)).rejects.toThrow(
      `exec plugin "kubelogin-not-installed" of user "main" in ${kubeconfig} cannot run: executable "kubelogin-not-installed" not found\n\nInstall kubelogin: https://example/kubelogin`,
    );
  });

  it('a plugin that hangs is killed after the timeout', async () => {
    const started = Date.now();
    // A shell, not Node: it has written its line within milliseconds even on a loaded machine, long before the kill.
    const hanging = { apiVersion: V1, interactiveMode: 'Never', command: '/bin/sh', args: ['-c', 'echo "waiting for the browser" >&2; exec sleep 1000'] };
    await expect(loadWithExec(hanging, { execTimeoutMs: 2000 })).rejects.toThrow(
      `exec plugin "/bin/sh" of user "main" in ${kubeconfig} did not finish within 2 s and was killed; stderr:\n  waiting for the browser`,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a refresh that fails keeps the last credential', async () => {
    await respond({ token: 'good' });
    const auth = await loadWithExec(pluginExec());
    await writeFile(join(pluginDir, 'response.json'), 'garbage');
    await expect(auth.refresh()).rejects.toThrow('printed no JSON on stdout');
    expect(await auth.headers()).toEqual({ authorization: 'Bearer good' });
  });

  it('exec settings client-go refuses', async () => {
    const where = (): string => `user "main" in ${kubeconfig}`;
    await expect(loadWithExec({ apiVersion: V1, command: 'x' })).rejects.toThrow(
      `${where()} has exec apiVersion client.authentication.k8s.io/v1 without interactiveMode (Never or IfAvailable)`,
    );
    await expect(loadWithExec({ apiVersion: V1, interactiveMode: 'Always', command: 'x' })).rejects.toThrow(
      `${where()} has exec interactiveMode Always, but an operator has no terminal: use Never or IfAvailable`,
    );
    await expect(loadWithExec({ apiVersion: 'client.authentication.k8s.io/v1alpha1', command: 'x' })).rejects.toThrow(
      `${where()} has exec apiVersion client.authentication.k8s.io/v1alpha1, which is not supported: use ${V1} or ${V1BETA1}`,
    );
    await expect(loadWithExec({ apiVersion: V1, interactiveMode: 'Never' })).rejects.toThrow(`${where()} has exec without a command`);
    await expect(loadWithExec({ apiVersion: V1, interactiveMode: 'Never', command: 'x', env: [{ value: 'v' }] })).rejects.toThrow(
      `${where()} has exec env[0] without a name`,
    );
    await writeKubeconfig(kubeconfig, singleContext({ server: 'https://x' }, { exec: pluginExec(), 'auth-provider': { name: 'oidc' } }));
    await expect(loadClusterAuth({ kubeconfig })).rejects.toThrow(`${where()} has both exec and auth-provider: keep one`);
  });
});
