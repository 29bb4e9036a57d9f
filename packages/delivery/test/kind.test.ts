// The kind path where no registry answers (kind/e2e.sh, kind/local-cluster.sh, kind/node-image.sh): the parts that can
// be checked without starting a cluster. The cluster itself is exercised by `npm run e2e:kind -- all`.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

const run = promisify(execFile);
const read = (path: string): Promise<string> => readFile(join(REPOSITORY_ROOT, path), 'utf8');

/** What a runtime pulls for a reference: Docker Hub's implicit host and `library/` made explicit. */
function normalized(image: string): string {
  const [first = '', ...rest] = image.split('/');
  if (rest.length === 0) return `docker.io/library/${image}`;
  if (!first.includes('.') && !first.includes(':') && first !== 'localhost') return `docker.io/${image}`;
  return image;
}

/** Third-party images the e2e specs and the installable samples run, and the PostgreSQL operator's default. */
async function pulledImages(): Promise<Set<string>> {
  const sources: string[] = [];
  for (const operator of ['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator']) {
    const e2e = join('packages', operator, 'test/e2e');
    for (const file of await readdir(join(REPOSITORY_ROOT, e2e))) sources.push(await read(join(e2e, file)));
    const samples = join('deploy', operator, 'samples');
    for (const file of await readdir(join(REPOSITORY_ROOT, samples))) sources.push(await read(join(samples, file)));
  }
  sources.push(await read('packages/postgresql-operator/src/api/defaults.ts'));
  sources.push(await read('packages/testkit/src/e2e.ts'));
  const images = new Set<string>();
  for (const source of sources) {
    for (const match of source.matchAll(/(?:image|IMAGE)\s*[=:]\s*['"]?([a-z0-9][a-z0-9./-]*:[A-Za-z0-9._-]+)/g)) {
      const image = normalized(match[1] ?? '');
      // The project's own images are loaded into kind; registry.invalid is the specs' image that must fail to pull.
      if (image.startsWith('ghcr.io/k8s-operators/') || image.startsWith('registry.invalid/')) continue;
      images.add(image);
    }
  }
  return images;
}

describe('stand-ins for third-party images', () => {
  test('every image the specs and samples pull has a stand-in in the local registry, and no stand-in is unused', async () => {
    const script = await read('kind/local-cluster.sh');
    const standIns = new Set([...script.matchAll(/^ {2}stand_in (\S+) /gm)].map((m) => m[1]));
    const pulled = await pulledImages();
    expect(pulled.size).toBeGreaterThan(3);
    expect([...standIns].sort()).toEqual([...pulled].sort());
  });
});

test('the node image is built at the Kubernetes version the rest of the project runs', async () => {
  const versions = await read('kind/node-image/versions.env');
  const testkit = await read('packages/testkit/scripts/build-control-plane.sh');
  const pinned = (text: string): string | undefined => /^KUBERNETES_VERSION=(v\S+)/m.exec(text)?.[1];
  expect(pinned(versions)).toMatch(/^v1\.\d+\.\d+$/);
  expect(pinned(versions)).toBe(pinned(testkit));
});

describe('node images of the other supported Kubernetes minors', () => {
  const minorsDir = 'kind/node-image/kubernetes';
  const env = (text: string, name: string): string => new RegExp(`^${name}=(\\S+)`, 'm').exec(text)?.[1] ?? '';
  const required = (goMod: string, module: string): string => new RegExp(`^require ${module.replace(/\./g, '\\.')} (v\\S+)$`, 'm').exec(goMod)?.[1] ?? '';

  test('each pinned minor builds what its versions.env says: the release, its staging modules and its kubeadm\'s etcd and CoreDNS, each in go.sum', async () => {
    const minors = await readdir(join(REPOSITORY_ROOT, minorsDir));
    expect(minors.length).toBeGreaterThanOrEqual(3);
    for (const minor of minors) {
      const versions = await read(join(minorsDir, minor, 'versions.env'));
      const kubernetes = env(versions, 'KUBERNETES_VERSION');
      expect(kubernetes, minor).toMatch(new RegExp(`^v${minor.replace('.', '\\.')}\\.\\d+$`));
      const staging = kubernetes.replace(/^v1\./, 'v0.');
      const k8s = await read(join(minorsDir, minor, 'modules/k8s/go.mod'));
      expect(required(k8s, 'k8s.io/kubernetes'), minor).toBe(kubernetes);
      const replaced = [...k8s.matchAll(/^replace (k8s\.io\/\S+) => (\S+) (v\S+)$/gm)];
      expect(replaced.length, minor).toBeGreaterThan(25);
      for (const [, from, to, version] of replaced) expect(`${String(from)} ${String(version)}`, minor).toBe(`${String(to)} ${staging}`);
      const etcd = env(versions, 'ETCD_VERSION');
      expect(env(versions, 'ETCD_IMAGE_TAG'), minor).toMatch(new RegExp(`^${etcd.slice(1).replace(/\./g, '\\.')}-\\d+$`));
      const modules: [string, string, string][] = [
        ['k8s', 'k8s.io/kubernetes', kubernetes],
        ['etcd', 'go.etcd.io/etcd/server/v3', etcd],
        ['coredns', 'github.com/coredns/coredns', env(versions, 'COREDNS_VERSION')],
      ];
      for (const [dir, module, version] of modules) {
        expect(required(await read(join(minorsDir, minor, 'modules', dir, 'go.mod')), module), `${minor} ${dir}`).toBe(version);
        const sum = await read(join(minorsDir, minor, 'modules', dir, 'go.sum'));
        expect(sum, `${minor} ${dir}`).toContain(`${module} ${version} h1:`);
        expect(sum, `${minor} ${dir}`).toContain(`${module} ${version}/go.mod h1:`);
      }
    }
  });

  test('the minors pinned here, with the project\'s own, are the e2e workflow\'s matrix', async () => {
    const own = /^KUBERNETES_VERSION=v(1\.\d+)\./m.exec(await read('kind/node-image/versions.env'))?.[1];
    const workflow = [...(await read('.github/workflows/e2e.yml')).matchAll(/^\s*- minor: '(1\.\d+)'$/gm)].map((m) => m[1]);
    expect(workflow.length).toBeGreaterThanOrEqual(4);
    expect([own, ...await readdir(join(REPOSITORY_ROOT, minorsDir))].sort()).toEqual([...workflow].sort());
  });

  test('node-image.sh names an image per minor, and refuses one not pinned with the ones that are', async () => {
    const image = async (...args: string[]): Promise<string> => (await run('bash', ['kind/node-image.sh', '--print-image', ...args], { cwd: REPOSITORY_ROOT })).stdout.trim();
    const own = await image();
    const older = await image('1.34');
    expect(older).toMatch(/^k8s-operators\.local\/kind-node:v1\.34\.\d+-[0-9a-f]{12}$/);
    expect(await run('bash', ['kind/node-image.sh', '--print-image'], { cwd: REPOSITORY_ROOT, env: { ...process.env, KIND_KUBERNETES_MINOR: '1.34' } }).then((r) => r.stdout.trim())).toBe(older);
    expect(own).not.toBe(older);
    const refused = await run('bash', ['kind/node-image.sh', '--print-image', '1.20'], { cwd: REPOSITORY_ROOT }).then(() => '', (error: unknown) => (error as { stderr: string }).stderr);
    expect(refused).toContain('no pins for Kubernetes 1.20; pinned here: 1.34 1.35');
    expect(refused).toContain('pin-kubernetes-minor.sh v1.20.<patch>');
  });
});

describe('the install ways of the kind e2e (--install)', () => {
  const refusal = (script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string }> =>
    run('bash', [script, ...args], { cwd: REPOSITORY_ROOT, env: { ...process.env, ...env } })
      .then(() => ({ code: 0, stderr: '' }), (error: unknown) => ({ code: (error as { code: number }).code, stderr: (error as { stderr: string }).stderr }));

  test('a way that does not exist is refused, with the ways there are, before any cluster is touched', async () => {
    expect(await refusal('kind/cli.sh', ['e2e', 'all', '--install', 'helm'])).toEqual({ code: 2, stderr: 'kind: --install helm: the ways are kustomize, manifest and chart\n' });
    expect(await refusal('kind/e2e.sh', ['maintpage-operator'], { E2E_INSTALL: 'helm' }))
      .toEqual({ code: 2, stderr: 'kind/e2e.sh: E2E_INSTALL=helm is not a way to install: kustomize, manifest or chart\n' });
  });
});

describe('runc-without-sys-resource', () => {
  let dir: string;
  const wrapper = join(REPOSITORY_ROOT, 'tools/images/runc-without-sys-resource');
  const allCaps = ['CAP_CHOWN', 'CAP_SYS_RESOURCE', 'CAP_SYS_ADMIN'];
  const capabilities = { bounding: allCaps, effective: allCaps, permitted: allCaps, inheritable: allCaps, ambient: allCaps };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runc-wrapper-'));
    // A runc that records what it was given: its arguments, and the spec files as they were when it ran.
    await mkdir(join(dir, 'bin'));
    await writeFile(join(dir, 'bin/runc'), `#!/usr/bin/env bash\nprintf '%s\\n' "$@" > "${dir}/args"\n`);
    await chmod(join(dir, 'bin/runc'), 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const wrap = (args: string[]): Promise<unknown> => run(wrapper, args, { env: { ...process.env, RUNC_WITHOUT_SYS_RESOURCE_PATH: join(dir, 'bin') }, cwd: dir });

  test('create drops CAP_SYS_RESOURCE from every set of the bundle\'s spec, keeps the rest, and passes the arguments on', async () => {
    const bundle = join(dir, 'bundle');
    await mkdir(bundle, { recursive: true });
    await writeFile(join(bundle, 'config.json'), JSON.stringify({ ociVersion: '1.2.0', process: { args: ['/sbin/init'], capabilities } }));
    const args = ['--root', '/run/docker/runtime-runc/moby', '--log', 'log.json', 'create', '--bundle', bundle, '--pid-file', 'pid', 'abc123'];
    await wrap(args);
    const spec = JSON.parse(await readFile(join(bundle, 'config.json'), 'utf8')) as { ociVersion: string; process: { args: string[]; capabilities: Record<string, string[]> } };
    for (const set of Object.values(spec.process.capabilities)) expect(set).toEqual(['CAP_CHOWN', 'CAP_SYS_ADMIN']);
    expect(spec.process.args).toEqual(['/sbin/init']);
    expect(spec.ociVersion).toBe('1.2.0');
    expect((await readFile(join(dir, 'args'), 'utf8')).trim().split('\n')).toEqual(args);
  });

  test('exec drops it from the process file; other commands and specs without it are left alone', async () => {
    const processFile = join(dir, 'process.json');
    await writeFile(processFile, JSON.stringify({ args: ['sh'], capabilities }));
    await wrap(['exec', '--process', processFile, '--detach', 'abc123']);
    const processSpec = JSON.parse(await readFile(processFile, 'utf8')) as { capabilities: Record<string, string[]> };
    expect(processSpec.capabilities.bounding).toEqual(['CAP_CHOWN', 'CAP_SYS_ADMIN']);

    const untouched = JSON.stringify({ process: { capabilities: { bounding: ['CAP_CHOWN'] } } });
    await mkdir(join(dir, 'plain'), { recursive: true });
    await writeFile(join(dir, 'plain/config.json'), untouched);
    await wrap(['run', '-b', join(dir, 'plain'), 'def456']);
    expect(await readFile(join(dir, 'plain/config.json'), 'utf8')).toBe(untouched);

    await writeFile(join(dir, 'config.json'), JSON.stringify({ process: { capabilities } }));
    await wrap(['delete', '--force', 'abc123']);
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toContain('CAP_SYS_RESOURCE');
  });
});
