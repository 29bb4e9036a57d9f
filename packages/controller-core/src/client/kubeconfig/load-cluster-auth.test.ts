import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { base64, singleContext, rejection, writeKubeconfig, useTestPki } from '../../../test/kubeconfig-fixtures.ts';
import type { ClusterAuth } from './cluster-auth.ts';
import { loadClusterAuth } from './load-cluster-auth.ts';

const pki = useTestPki('ca', 'client');
afterEach(() => {
  vi.useRealTimers();
});

/** A kubeconfig with a token user for `server`, at a path under the test directory. */
async function tokenKubeconfig(relativePath: string, server: string, token: string): Promise<string> {
  return writeKubeconfig(join(pki.dir, relativePath), singleContext({ server, 'certificate-authority-data': base64(pki.ca.cert) }, { token }));
}

/** A ServiceAccount mount (token and ca.crt), as the kubelet writes it. */
async function serviceAccountDir(relativePath: string, token: string): Promise<string> {
  const path = join(pki.dir, relativePath);
  await mkdir(path, { recursive: true });
  await writeFile(join(path, 'token'), token);
  await writeFile(join(path, 'ca.crt'), pki.ca.cert);
  return path;
}

describe('where the configuration comes from (controller-runtime GetConfig order)', () => {
  let explicit: string;
  let fromEnv: string;
  let home: string;
  let serviceAccount: string;
  const inClusterEnv = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

  beforeAll(async () => {
    explicit = await tokenKubeconfig('order/explicit.yaml', 'https://explicit.example:6443', 'explicit-token');
    fromEnv = await tokenKubeconfig('order/from-env.yaml', 'https://from-env.example:6443', 'env-token');
    home = join(pki.dir, 'order/home');
    await tokenKubeconfig('order/home/.kube/config', 'https://home.example:6443', 'home-token');
    serviceAccount = await serviceAccountDir('order/serviceaccount', 'in-cluster-token');
  });

  it('takes the explicit kubeconfig over KUBECONFIG, KUBECONFIG over in-cluster, in-cluster over ~/.kube/config', async () => {
    const everything = { env: { KUBECONFIG: fromEnv, ...inClusterEnv }, homeDir: home, serviceAccountDir: serviceAccount };
    expect((await loadClusterAuth({ ...everything, kubeconfig: explicit })).server).toBe('https://explicit.example:6443');
    expect((await loadClusterAuth(everything)).server).toBe('https://from-env.example:6443');
    const inCluster = await loadClusterAuth({ ...everything, env: inClusterEnv });
    expect(inCluster.server).toBe('https://10.96.0.1:443');
    expect(await inCluster.headers()).toEqual({ authorization: 'Bearer in-cluster-token' });
    const fromHome = await loadClusterAuth({ ...everything, env: {} });
    expect(fromHome.server).toBe('https://home.example:6443');
    expect(await fromHome.headers()).toEqual({ authorization: 'Bearer home-token' });
  });

  it('falls back to ~/.kube/config when the in-cluster token cannot be read, as controller-runtime does', async () => {
    const auth = await loadClusterAuth({ env: inClusterEnv, homeDir: home, serviceAccountDir: join(pki.dir, 'order/no-such-mount') });
    expect(auth.server).toBe('https://home.example:6443');
  });

  it('finds the home directory through $HOME when none is given', async () => {
    expect((await loadClusterAuth({ env: { HOME: home } })).server).toBe('https://home.example:6443');
  });

  it('says what it tried when there is no configuration at all', async () => {
    const nowhere = join(pki.dir, 'order/empty-home');
    await expect(loadClusterAuth({ env: {}, homeDir: nowhere, serviceAccountDir: serviceAccount })).rejects.toThrow(
      `no kubeconfig found: KUBECONFIG is not set, not running in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set), and ${nowhere}/.kube/config does not exist; set KUBECONFIG or give a kubeconfig path`,
    );
    const missingMount = join(pki.dir, 'order/no-such-mount');
    await expect(loadClusterAuth({ env: inClusterEnv, homeDir: nowhere, serviceAccountDir: missingMount })).rejects.toThrow(
      `the in-cluster config is unusable (in-cluster ServiceAccount token: cannot read token file ${missingMount}/token: ENOENT`,
    );
  });

  it('refuses an explicit kubeconfig that does not exist rather than looking elsewhere', async () => {
    const missing = join(pki.dir, 'order/missing.yaml');
    await expect(loadClusterAuth({ kubeconfig: missing, env: { KUBECONFIG: fromEnv }, homeDir: home })).rejects.toThrow(
      `kubeconfig ${missing} does not exist`,
    );
  });
});

describe('in-cluster', () => {
  it('uses the Service environment, the mounted CA, and the token file, re-read after a minute or a 401', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const mount = await serviceAccountDir('in-cluster/ipv4', 'token-1');
    const auth = await loadClusterAuth({ env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '6443' }, serviceAccountDir: mount });
    expect(auth.server).toBe('https://10.96.0.1:6443');
    expect(auth.tls).toEqual({ ca: pki.ca.cert, cert: undefined, key: undefined, servername: undefined });
    expect(await auth.headers()).toEqual({ authorization: 'Bearer token-1' });

    // The kubelet rotates the token: within the minute the old one is still sent, a 401's refresh() reads the new one.
    await writeFile(join(mount, 'token'), 'token-2\n');
    expect(await auth.headers()).toEqual({ authorization: 'Bearer token-1' });
    await auth.refresh();
    expect(await auth.headers()).toEqual({ authorization: 'Bearer token-2' });

    await writeFile(join(mount, 'token'), 'token-3');
    vi.setSystemTime(Date.now() + 59_000);
    expect(await auth.headers()).toEqual({ authorization: 'Bearer token-2' });
    vi.setSystemTime(Date.now() + 2_000);
    expect(await auth.headers()).toEqual({ authorization: 'Bearer token-3' });

    // A file that cannot be read keeps the last token, as in client-go.
    await rm(join(mount, 'token'));
    await auth.refresh();
    expect(await auth.headers()).toEqual({ authorization: 'Bearer token-3' });
  });

  it('brackets an IPv6 service host', async () => {
    const mount = await serviceAccountDir('in-cluster/ipv6', 'token');
    const auth = await loadClusterAuth({ env: { KUBERNETES_SERVICE_HOST: 'fd00:10:96::1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: mount });
    expect(auth.server).toBe('https://[fd00:10:96::1]:443');
  });

  it('needs both KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT', async () => {
    const mount = await serviceAccountDir('in-cluster/partial', 'token');
    await expect(loadClusterAuth({ env: { KUBERNETES_SERVICE_HOST: '10.96.0.1' }, serviceAccountDir: mount, homeDir: join(pki.dir, 'in-cluster/nohome') })).rejects.toThrow(
      'not running in a cluster',
    );
  });
});

describe('KUBECONFIG with several files', () => {
  let first: string;
  let second: string;

  beforeAll(async () => {
    first = await writeKubeconfig(join(pki.dir, 'merge/first/config'), {
      clusters: [{ name: 'shared', cluster: { server: 'https://first.example', 'certificate-authority': '../../pki/ca.pem' } }],
      users: [{ name: 'shared-user', user: { token: 'first-token' } }],
      contexts: [{ name: 'first', context: { cluster: 'shared', user: 'shared-user' } }],
      'current-context': 'first',
    });
    second = await writeKubeconfig(join(pki.dir, 'merge/second/nested/config'), {
      clusters: [
        // Same name as in the first file: the first file's entry wins whole, tls-server-name is not mixed in.
        { name: 'shared', cluster: { server: 'https://second.example', 'tls-server-name': 'second.internal' } },
        { name: 'only-second', cluster: { server: 'https://only-second.example' } },
      ],
      users: [
        { name: 'shared-user', user: { token: 'second-token', as: 'someone-else' } },
        { name: 'cert-user', user: { 'client-certificate': '../../../pki/client.pem', 'client-key': '../../../pki/client-key.pem' } },
      ],
      contexts: [
        { name: 'first', context: { cluster: 'only-second', user: 'cert-user' } },
        { name: 'mixed', context: { cluster: 'shared', user: 'cert-user' } },
      ],
      'current-context': 'mixed',
    });
  });

  it('takes current-context and every named entry from the first file that sets it', async () => {
    const auth = await loadClusterAuth({ env: { KUBECONFIG: `${first}:${second}` } });
    expect(auth.server).toBe('https://first.example');
    expect(auth.tls).toEqual({ ca: pki.ca.cert, cert: undefined, key: undefined, servername: undefined });
    expect(await auth.headers()).toEqual({ authorization: 'Bearer first-token' });

    const reversed = await loadClusterAuth({ env: { KUBECONFIG: `${second}:${first}` } });
    expect(reversed.server).toBe('https://second.example');
    expect(reversed.tls.servername).toBe('second.internal');
    expect(reversed.tls.cert).toEqual(pki.client.cert);
  });

  it('resolves relative paths against the directory of the file that defines each entry', async () => {
    // Context "mixed" of the second file names the first file's cluster (CA path relative to merge/first) and the
    // second file's user (certificate paths relative to merge/second/nested).
    const auth = await loadClusterAuth({ env: { KUBECONFIG: `${first}:${second}` }, context: 'mixed' });
    expect(auth.server).toBe('https://first.example');
    expect(auth.tls).toEqual({ ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key, servername: undefined });
    expect(await auth.headers()).toEqual({});
  });

  it('ignores empty entries and missing files, and a file without current-context', async () => {
    const missing = join(pki.dir, 'merge/missing.yaml');
    const noCurrent = await writeKubeconfig(join(pki.dir, 'merge/no-current.yaml'), {
      clusters: [{ name: 'shared', cluster: { server: 'https://no-current.example' } }],
    });
    const auth = await loadClusterAuth({ env: { KUBECONFIG: `:${missing}::${noCurrent}:${second}:` } });
    // current-context comes from the second file ("mixed"), cluster "shared" from the no-current file.
    expect(auth.server).toBe('https://no-current.example');
  });

  it('refuses a list none of whose files exists, or that names no file', async () => {
    const a = join(pki.dir, 'merge/a.yaml');
    const b = join(pki.dir, 'merge/b.yaml');
    await expect(loadClusterAuth({ env: { KUBECONFIG: `${a}:${b}` } })).rejects.toThrow(`none of the files in KUBECONFIG exists: ${a}, ${b}`);
    await expect(loadClusterAuth({ env: { KUBECONFIG: '::' } })).rejects.toThrow('KUBECONFIG ("::") names no file');
  });
});

describe('errors name the file and the entry', () => {
  const load = async (name: string, config: unknown, context?: string): Promise<ClusterAuth> => {
    const path = join(pki.dir, 'errors', name);
    await mkdir(join(pki.dir, 'errors'), { recursive: true });
    await writeFile(path, typeof config === 'string' ? config : JSON.stringify(config));
    return loadClusterAuth({ kubeconfig: path, ...(context === undefined ? {} : { context }) });
  };
  const path = (name: string): string => join(pki.dir, 'errors', name);
  const cluster = { server: 'https://example:6443' };

  it('a file that cannot be read or parsed', async () => {
    await mkdir(path('a-directory'), { recursive: true });
    await expect(loadClusterAuth({ kubeconfig: path('a-directory') })).rejects.toThrow(`cannot read kubeconfig ${path('a-directory')}: EISDIR`);
    const badYaml = 'clusters:\n- name: main\n  cluster:\n    server: https://x\nusers:\n- name: main\n  user:\n    token: s3cr3t: oops\n';
    const error = await rejection(load('bad.yaml', badYaml));
    expect(error.message).toBe(`kubeconfig ${path('bad.yaml')} is not valid YAML at line 8, column 12: Nested mappings are not allowed in compact mappings`);
    expect(error.message).not.toContain('s3cr3t');
    await expect(load('list.yaml', '- a\n- b\n')).rejects.toThrow(`kubeconfig ${path('list.yaml')} is not a kubeconfig: its top level must be a mapping`);
    await expect(load('clusters.yaml', { clusters: { main: {} } })).rejects.toThrow(`kubeconfig ${path('clusters.yaml')}: clusters must be a list`);
    await expect(load('noname.yaml', { users: [{ user: {} }] })).rejects.toThrow(`kubeconfig ${path('noname.yaml')}: users[0] has no name`);
    await expect(load('twice.yaml', { contexts: [{ name: 'a', context: {} }, { name: 'a', context: {} }] })).rejects.toThrow(
      `kubeconfig ${path('twice.yaml')}: contexts has two entries named "a"`,
    );
  });

  it('contexts that do not resolve', async () => {
    await expect(load('empty.yaml', '')).rejects.toThrow(`kubeconfig ${path('empty.yaml')} has no current-context: set one (kubectl config use-context NAME) or choose a context`);
    const config = {
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user: {} }],
      contexts: [
        { name: 'ok', context: { cluster: 'c', user: 'u' } },
        { name: 'bad-cluster', context: { cluster: 'nope', user: 'u' } },
        { name: 'bad-user', context: { cluster: 'c', user: 'nobody' } },
        { name: 'no-user', context: { cluster: 'c' } },
      ],
      'current-context': 'gone',
    };
    await expect(load('refs.yaml', config)).rejects.toThrow(
      `current-context "gone" (set in ${path('refs.yaml')}) is not defined in kubeconfig ${path('refs.yaml')}; defined contexts: ok, bad-cluster, bad-user, no-user`,
    );
    await expect(load('refs.yaml', config, 'other')).rejects.toThrow(`context "other" is not defined in kubeconfig ${path('refs.yaml')}`);
    await expect(load('refs.yaml', config, 'bad-cluster')).rejects.toThrow(
      `context "bad-cluster" in ${path('refs.yaml')} names cluster "nope", which kubeconfig ${path('refs.yaml')} does not define; defined clusters: c`,
    );
    await expect(load('refs.yaml', config, 'bad-user')).rejects.toThrow(`context "bad-user" in ${path('refs.yaml')} names user "nobody", which`);
    await expect(load('refs.yaml', config, 'no-user')).rejects.toThrow(`context "no-user" in ${path('refs.yaml')} names no user`);
    expect((await load('refs.yaml', config, 'ok')).server).toBe('https://example:6443');
  });
});

describe('what is loaded into the process', () => {
  const loadedBy = async (options: object): Promise<string[]> => {
    const script = `
      import { registerHooks } from 'node:module';
      const loaded = [];
      registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); loaded.push(result.url); return result; } });
      const { loadClusterAuth } = await import(${JSON.stringify(new URL('./load-cluster-auth.ts', import.meta.url).href)});
      const auth = await loadClusterAuth(JSON.parse(process.argv[1]));
      await auth.headers();
      console.log(JSON.stringify(loaded.filter((url) => url.includes('/node_modules/')).map((url) => url.replace(/.*\\/node_modules\\/((@[^/]+\\/)?[^/]+).*/, '$1'))));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--input-type=module', '-e', script, JSON.stringify(options)], {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    });
    return [...new Set(JSON.parse(stdout) as string[])];
  };

  it('in a cluster: neither yaml nor client-node', async () => {
    const mount = await serviceAccountDir('loaded/serviceaccount', 'token');
    expect(await loadedBy({ env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: mount })).toEqual([]);
  });

  it('with a kubeconfig: yaml, not client-node', async () => {
    const kubeconfig = await tokenKubeconfig('loaded/config', 'https://example', 'token');
    expect(await loadedBy({ kubeconfig })).toEqual(['yaml']);
  });

  it('with an auth-provider: client-node too (which shows the check sees it)', async () => {
    const jwtPart = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const idToken = `${jwtPart({ alg: 'none' })}.${jwtPart({ exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
    const kubeconfig = await writeKubeconfig(
      join(pki.dir, 'loaded/oidc'),
      singleContext({ server: 'https://example' }, { 'auth-provider': { name: 'oidc', config: { 'id-token': idToken } } }),
    );
    expect(await loadedBy({ kubeconfig })).toContain('@kubernetes/client-node');
  });
});
