// The images users install, started the way the manifests start them: read-only root, UID 65532, no capabilities.
// Each must start its entry point (a Dockerfile that copies less than the program imports fails here), answer its
// health endpoint, have no shell where its base is distroless, and carry none of this machine's credentials or CAs.
// npm run images builds them; .ci/run does before npm test.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ControlPlane, engineAvailable, imageRef, projectImageMode, PROJECT_IMAGES, REPOSITORY_ROOT, startImage } from '@k8s-operators/testkit';

const run = promisify(execFile);
const engineMode = projectImageMode() === 'engine' || (projectImageMode() === 'auto' && (await engineAvailable()));

describe.runIf(engineMode)('images', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await ControlPlane.start({ dir: await mkdtemp(join(tmpdir(), 'images-')) });
    for (const image of PROJECT_IMAGES) {
      if (image.crds) await run(cp.binaries.kubectl, ['apply', '-k', join(REPOSITORY_ROOT, image.crds)], { env: { ...process.env, KUBECONFIG: cp.adminKubeconfig } });
    }
  });
  afterAll(async () => {
    await cp.stop();
  });

  for (const image of PROJECT_IMAGES) {
    const ref = imageRef(image.name);

    test(`${image.name} starts read-only as 65532 with no capabilities and answers ${image.healthPath}`, async () => {
      const size = Number((await run('docker', ['image', 'inspect', '--format', '{{.Size}}', ref])).stdout);
      console.log(`${ref}: ${(size / 1e6).toFixed(0)} MB`);
      const started = await startImage(image, cp.adminKubeconfig);
      // A graceful stop on SIGTERM: the exit code Kubernetes shows for a clean shutdown.
      expect(await started.stop(), started.output()).toBe(0);
      expect(started.output()).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)/);
    });

    // The PostgreSQL image runs on node:*-slim (its client tools come from apt), which has a shell.
    if (image.distroless) {
      test(`${image.name} has no shell`, async () => {
        const result = await run('docker', ['run', '--rm', '--entrypoint', '/bin/sh', ref, '-c', 'true']).then(() => 'ran', (e: unknown) => (e as { stderr: string }).stderr);
        expect(result).toMatch(/no such file or directory/);
      });
    }

    test(`${image.name} carries none of this machine's credentials or local CAs`, async () => {
      // Every layer, not just the final filesystem: a file deleted in a later layer still ships in the earlier one.
      const dir = await mkdtemp(join(tmpdir(), 'image-layers-'));
      try {
        await run('docker', ['save', '--output', join(dir, 'image.tar'), ref]);
        await run('tar', ['-xf', join(dir, 'image.tar'), '-C', dir]);
        const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { Layers: string[] }[];
        const layers = manifest[0]?.Layers ?? [];
        expect(layers.length).toBeGreaterThan(0);
        const found: string[] = [];
        for (const layer of layers) {
          const files = (await run('tar', ['-tf', join(dir, layer)], { maxBuffer: 256 * 1024 * 1024 })).stdout.split('\n');
          found.push(...files.filter((f) => CREDENTIAL_FILE.test(f)).map((f) => `${layer}: ${f}`));
          for (const body of await localCaBodies()) {
            const hit = await run('grep', ['-c', '-F', body, join(dir, layer)]).then(() => true, () => false);
            if (hit) found.push(`${layer}: a CA from /usr/local/share/ca-certificates`);
          }
        }
        expect(found).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

/** Files that hold credentials: npm and Docker logins, netrc, SSH keys, the build's CA secret. */
const CREDENTIAL_FILE = /(^|\/)(\.npmrc|\.netrc|\.docker\/config\.json|id_(rsa|ecdsa|ed25519)|run\/secrets\/.*)$/;

/** A line from the middle of each CA this machine trusts beyond Debian's bundle (the TLS-inspecting proxy's, say). */
async function localCaBodies(): Promise<string[]> {
  const dir = '/usr/local/share/ca-certificates';
  const files = await readdir(dir).catch(() => [] as string[]);
  const bodies: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.crt'))) {
    const lines = (await readFile(join(dir, file), 'utf8')).split('\n').filter((l) => /^[A-Za-z0-9+/=]{64}$/.test(l));
    const middle = lines[Math.floor(lines.length / 2)];
    if (middle) bodies.push(middle);
  }
  return bodies;
}

test('the Dockerfile installs the workspace from every workspace manifest, so a new package cannot break the image builds', async () => {
  const manifests = ['tools/package.json', ...(await readdir(join(REPOSITORY_ROOT, 'packages'))).map((p) => `packages/${p}/package.json`)].sort();
  const text = await readFile(join(REPOSITORY_ROOT, 'Dockerfile'), 'utf8');
  const copied = [...text.matchAll(/^COPY (\S+\/package\.json) /gm)].map((m) => m[1] ?? '').sort();
  expect(copied).toEqual(manifests);
});
