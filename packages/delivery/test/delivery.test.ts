// What users install and CI runs, checked like a reviewer would: workflows that GitHub will accept, install trees
// that build and that the API server accepts, manager Pods that pass the restricted Pod Security level, and images
// that run as non-root with an exec-form entry point and pinned bases.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ControlPlane, PROJECT_IMAGES, REPOSITORY_ROOT, findBinaries } from '@k8s-operators/testkit';
import { DEPLOYMENT_NODE_OPTIONS, IMAGE_NODE_FLAGS } from '@k8s-operators/controller-core/operator-node-flags';

const run = promisify(execFile);
const OPERATORS = ['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator'] as const;
const operatorsWithInstall = async (): Promise<string[]> => {
  const present: string[] = [];
  for (const op of OPERATORS) {
    const entries: string[] = await readdir(join(REPOSITORY_ROOT, 'deploy', op)).catch(() => []);
    if (entries.includes('kustomization.yaml')) present.push(op);
  }
  return present;
};

interface K8sObject { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: Record<string, unknown> }

test('the GitHub workflows pass actionlint', async () => {
  const { stdout } = await run('bash', [join(REPOSITORY_ROOT, 'packages/delivery/scripts/actionlint.sh')]);
  const actionlint = stdout.trim();
  const workflows = (await readdir(join(REPOSITORY_ROOT, '.github/workflows'))).filter((f) => f.endsWith('.yml')).map((f) => join(REPOSITORY_ROOT, '.github/workflows', f));
  expect(workflows.length).toBeGreaterThanOrEqual(3);
  const result = await run(actionlint, workflows).then(
    () => ({ code: 0, out: '' }),
    (e: unknown) => ({ code: (e as { code: number }).code, out: (e as { stdout: string }).stdout }),
  );
  expect(result.out).toBe('');
  expect(result.code).toBe(0);
});

test('every action is pinned by commit SHA and every workflow starts from no permissions', async () => {
  for (const file of await readdir(join(REPOSITORY_ROOT, '.github/workflows'))) {
    const text = await readFile(join(REPOSITORY_ROOT, '.github/workflows', file), 'utf8');
    // A workflow of this repository (uses: ./.github/workflows/…) is the caller's own commit: nothing to pin.
    for (const [, ref] of text.matchAll(/uses:\s*([^\s#]+)/g)) expect(ref, `${file}: ${ref ?? ''}`).toMatch(/^\.\/\.github\/workflows\/[\w.-]+\.ya?ml$|@[0-9a-f]{40}$/);
    expect(text, file).toMatch(/^permissions: \{\}$/m);
  }
});

interface Stage { base: string; name?: string; text: string }

/** The Dockerfile's stages in order: the base each is built FROM, its name (AS), and its instructions. */
async function dockerfileStages(): Promise<Stage[]> {
  const text = await readFile(join(REPOSITORY_ROOT, 'Dockerfile'), 'utf8');
  return text.split(/^(?=FROM )/m).slice(1).map((stage) => {
    const [, base = '', name] = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(stage) ?? [];
    return { base, name, text: stage };
  });
}

/** The stages an image's target is made of, its own last: a stage built FROM another stage takes that one's settings. */
function targetStages(stages: Stage[], target: string): Stage[] {
  const stage = stages.find((s) => s.name === target);
  if (!stage) return [];
  return stages.some((s) => s.name === stage.base) ? [...targetStages(stages, stage.base), stage] : [stage];
}

/** The last value of an instruction over a target's stages (the one in effect), or undefined. */
function inEffect(stages: Stage[], instruction: string): string | undefined {
  return stages.flatMap((s) => [...s.text.matchAll(new RegExp(`^${instruction} (.*)$`, 'gm'))].map((m) => m[1] ?? '')).at(-1);
}

/** The exec-form ENTRYPOINT of a target, or undefined. */
function entrypointOf(stages: Stage[]): string[] | undefined {
  const line = inEffect(stages, 'ENTRYPOINT');
  return line === undefined ? undefined : (JSON.parse(line) as string[]);
}

describe('the Dockerfile', () => {
  const images = PROJECT_IMAGES.map((image) => image.name);

  test('has one target per image, each run as UID 65532 from pinned bases, which build arguments can replace', async () => {
    const text = await readFile(join(REPOSITORY_ROOT, 'Dockerfile'), 'utf8');
    const stages = await dockerfileStages();
    // A base named by a build argument is pinned by the argument's default (the published image).
    const defaults = new Map([...text.matchAll(/^ARG\s+([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
    const stageNames = new Set(stages.map((s) => s.name));
    const bases = stages.map((s) => s.base).filter((b) => !stageNames.has(b)).map((b) => b.replace(/^\$\{([A-Z_]+)\}$/, (_, arg: string) => defaults.get(arg) ?? b));
    expect(bases.length).toBeGreaterThanOrEqual(2);
    for (const image of bases) expect(image).toMatch(/:[^:]*\d[^:]*$|@sha256:/);
    expect(bases.some((b) => b.endsWith(':latest'))).toBe(false);
    for (const image of images) {
      const target = targetStages(stages, image);
      expect(target.length, image).toBeGreaterThan(0);
      expect(inEffect(target, 'USER'), image).toBe('65532:65532');
    }
  });

  test('is built whole by npm run images: tools/images/build.sh names exactly these targets', async () => {
    // build.sh stays plain bash (it runs before any npm install); this keeps its list and testkit's one list together.
    const script = await readFile(join(REPOSITORY_ROOT, 'tools/images/build.sh'), 'utf8');
    const listed = /^images=\(([^)]*)\)$/m.exec(script)?.[1]?.trim().split(/\s+/);
    expect(listed?.toSorted()).toEqual(images.toSorted());
  });

  test('starts the program itself, so a Pod\'s args are its flags and not node\'s', async () => {
    // Kubernetes' `args` replace the image's CMD and keep its ENTRYPOINT. An image whose ENTRYPOINT is bare node and
    // whose CMD names the script would run `node --leader-elect=true ...` under any Deployment that sets args.
    const stages = await dockerfileStages();
    for (const image of images) {
      const target = targetStages(stages, image);
      expect(entrypointOf(target)?.at(-1), image).toMatch(/^packages\/.+\/dist\/.+\.js$/);
      expect(inEffect(target, 'CMD'), image).toBeUndefined();
    }
    for (const op of OPERATORS) {
      const manager = parseAllDocuments(await readFile(join(REPOSITORY_ROOT, 'deploy', op, 'manager/manager.yaml'), 'utf8')).map((d) => d.toJSON() as K8sObject);
      const containers = manager.flatMap((o) => (o.kind === 'Deployment' ? ((o.spec?.template as { spec: { containers: { command?: unknown; args?: unknown }[] } }).spec.containers) : []));
      for (const container of containers) {
        expect(container.command, op).toBeUndefined();
        expect(container.args, op).toEqual(expect.arrayContaining([expect.stringMatching(/^--/)]));
      }
    }
  });

  test('operators run with the Node flags the core benchmark measures', async () => {
    for (const op of OPERATORS) {
      const entrypoint = entrypointOf(targetStages(await dockerfileStages(), op)) ?? [];
      expect(entrypoint.slice(1, -1), op).toEqual(IMAGE_NODE_FLAGS);
      const manager = parseAllDocuments(await readFile(join(REPOSITORY_ROOT, 'deploy', op, 'manager/manager.yaml'), 'utf8')).map((d) => d.toJSON() as K8sObject);
      const deployment = manager.find((o) => o.kind === 'Deployment');
      const env = (deployment?.spec?.template as { spec: { containers: { env?: { name: string; value?: string }[] }[] } } | undefined)?.spec.containers[0]?.env ?? [];
      expect(env.find((e) => e.name === 'NODE_OPTIONS')?.value, op).toBe(DEPLOYMENT_NODE_OPTIONS);
    }
  });
});

describe('install trees', () => {
  let cp: ControlPlane;
  let kubectl: string;
  const k = (args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = execFile(kubectl, args, { env: { ...process.env, KUBECONFIG: cp.adminKubeconfig }, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      });
      if (input !== undefined) child.stdin?.end(input);
    });

  beforeAll(async () => {
    kubectl = (await findBinaries()).kubectl;
    cp = await ControlPlane.start({ dir: await mkdtemp(join(tmpdir(), 'delivery-')) });
  });
  afterAll(async () => {
    await cp.stop();
  });

  test('each deploy/<operator> builds, pins a non-latest image, and passes a server-side dry-run', async () => {
    const operators = await operatorsWithInstall();
    expect(operators).toContain('maintpage-operator');
    for (const op of operators) {
      const built = await k(['kustomize', join(REPOSITORY_ROOT, 'deploy', op)]);
      expect(built.stderr, op).toBe('');
      const objects = parseAllDocuments(built.stdout).map((d) => d.toJSON() as K8sObject);
      const namespace = objects.find((o) => o.kind === 'Namespace');
      expect(namespace?.metadata.name, op).toBe(`${op}-system`);
      for (const image of built.stdout.matchAll(/image: (\S+)/g)) expect(image[1], op).not.toMatch(/:latest$|^[^:]+$/);
      // The namespace first (a dry-run cannot create it for the namespaced objects), then everything.
      await k(['create', 'namespace', `${op}-system`]);
      const dryRun = await k(['apply', '--server-side', '--dry-run=server', '-k', join(REPOSITORY_ROOT, 'deploy', op)]);
      expect(dryRun.stderr, op).toBe('');
      expect(dryRun.code, op).toBe(0);
    }
  });

  test('the manager Pods meet the restricted Pod Security level', async () => {
    for (const op of await operatorsWithInstall()) {
      const built = await k(['kustomize', join(REPOSITORY_ROOT, 'deploy', op)]);
      const deployments = parseAllDocuments(built.stdout).map((d) => d.toJSON() as K8sObject).filter((o) => o.kind === 'Deployment');
      expect(deployments.length, op).toBeGreaterThan(0);
      const ns = `psa-${op}`;
      await k(['create', 'namespace', ns]);
      await k(['label', 'namespace', ns, 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted']);
      for (const deployment of deployments) {
        // Pod Security admission judges Pods; a Pod made from the template is what the ReplicaSet would create.
        // Without the ServiceAccount, which does not exist here; Pod Security does not look at it.
        const { serviceAccountName: _sa, ...spec } = (deployment.spec?.template as { spec: Record<string, unknown> }).spec;
        const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'psa-check', namespace: ns }, spec };
        const result = await k(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(pod));
        expect(result.stderr, `${op} ${deployment.metadata.name}`).toBe('');
        expect(result.code, `${op} ${deployment.metadata.name}`).toBe(0);
      }
      // And the check can fail: a root container is refused in the same namespace.
      const root = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'root', namespace: ns }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } };
      const refused = await k(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(root));
      expect(refused.stderr).toContain('violates PodSecurity "restricted:latest"');
    }
  });
});

test('docs/api-reference.md matches the CRDs (npm run docs regenerates it)', async () => {
  const check = await run(process.execPath, ['--conditions=source', join(REPOSITORY_ROOT, 'tools/api-reference.ts'), '--check']).then(
    () => ({ code: 0, stderr: '' }),
    (e: unknown) => ({ code: (e as { code: number }).code, stderr: (e as { stderr: string }).stderr }),
  );
  expect(check.stderr).toBe('');
  expect(check.code).toBe(0);
});
