// A release pushed and signed as its maintainer would make it, against a registry on loopback: `npm run release --
// --push --sign-key` builds the images for the registry, pushes them, pins the digests the registry returned in every
// install.yaml and chart, and signs each image and install.yaml with cosign. Then what a user does: `cosign verify`
// passes on all of it, and fails on an image pushed unsigned, on a tag pushed over after signing, and on an
// install.yaml changed after signing.
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { engineAvailable, findProvisionedTool, projectImageMode, REPOSITORY_ROOT } from '@k8s-operators/testkit';
import { developmentImage } from '../src/release-images.ts';
import { releaseImageNames } from '../src/release.ts';
import { RELEASED_OPERATORS } from '../src/released-operators.ts';
import { offlineCosignFlags } from '../src/sign-release.ts';
import { startLocalRegistry, type LocalRegistry } from './local-registry.ts';
import { parseObjects, runCommand, type CommandResult } from './release-fixture.ts';

const run = promisify(execFile);
// The images are built and pushed with Docker's engine, as everywhere the project's images are used.
const engineMode = projectImageMode() === 'engine' || (projectImageMode() === 'auto' && (await engineAvailable()));
const VERSION = '0.3.0';
let registry: LocalRegistry | undefined;
let work = '';
let cosign = '';
let offline: string[] = [];
let released: CommandResult;
const repository = (name: string): string => `k8s-operators/${name}`;
const env = { COSIGN_PASSWORD: 'release-test' };

describe.runIf(engineMode)('a release pushed and signed', () => {
  beforeAll(async () => {
    cosign = await findProvisionedTool('cosign');
    offline = (await offlineCosignFlags()).verify;
    registry = await startLocalRegistry();
    work = await mkdtemp(join(tmpdir(), 'release-signed-'));
    await run(cosign, ['generate-key-pair'], { cwd: work, env: { ...process.env, ...env } });
    released = await runCommand(process.execPath, [
      '--conditions=source', join(REPOSITORY_ROOT, 'packages/release/src/cli.ts'),
      '--version', VERSION, '--registry', `${registry.host}/k8s-operators`, '--push', '--sign-key', join(work, 'cosign.key'), '--out', join(work, 'out'),
    ], env);
  }, 900_000);
  afterAll(async () => {
    await registry?.stop();
    // The tags this file made in the engine; the images' layers stay shared with the development tags.
    const host = registry?.host ?? '';
    for (const name of [...releaseImageNames().map((n) => `${host}/${repository(n)}:${VERSION}`), `${host}/k8s-operators/unsigned:1`]) {
      await run('docker', ['image', 'rm', name]).catch(() => undefined);
    }
    if (work !== '') await rm(work, { recursive: true, force: true });
  });

  const verify = (args: readonly string[]): Promise<CommandResult> => runCommand(cosign, ['verify', '--key', join(work, 'cosign.pub'), '--insecure-ignore-tlog=true', ...offline, ...args]);
  const verifyFile = (file: string): Promise<CommandResult> =>
    runCommand(cosign, ['verify-blob', '--key', join(work, 'cosign.pub'), '--insecure-ignore-tlog=true', ...offline, '--bundle', `${file}.sigstore.json`, file]);

  test('every manifest and chart pins the digest the registry holds, and all of it verifies', async () => {
    expect(released.stderr).not.toMatch(/^release: .*failed/m);
    expect(released.code).toBe(0);
    const host = registry?.host ?? '';
    for (const name of releaseImageNames()) {
      const digest = await registry?.digestOf(repository(name), VERSION);
      expect(digest, name).toMatch(/^sha256:[0-9a-f]{64}$/);
      const pinned = `${host}/${repository(name)}:${VERSION}@${digest ?? ''}`;
      const signed = await verify([pinned]);
      expect(signed.code, `${name}: ${signed.stderr}`).toBe(0);
      expect(signed.stderr).toContain('The signatures were verified against the specified public key');
    }
    for (const operator of RELEASED_OPERATORS) {
      const install = join(work, 'out', operator, 'install.yaml');
      const images = parseObjects(await readFile(install, 'utf8')).flatMap((o) => JSON.stringify(o).match(/"image":"[^"]+"/g) ?? []);
      expect(images.length, operator).toBeGreaterThan(0);
      for (const image of images) expect(image, operator).toMatch(new RegExp(`"image":"${host}/k8s-operators/[a-z-]+:${VERSION}@sha256:[0-9a-f]{64}"`));
      const values = await readFile(join(work, 'out', operator, 'chart', 'values.yaml'), 'utf8');
      expect(values).toContain(`digest: ${(await registry?.digestOf(repository(operator), VERSION)) ?? 'none'}`);
      const blob = await verifyFile(install);
      expect(blob.code, `${operator}: ${blob.stderr}`).toBe(0);
      expect(blob.stderr).toContain('Verified OK');
    }
  });

  test('verification fails on an image pushed unsigned, a tag pushed over after signing, and an edited install.yaml', async () => {
    const host = registry?.host ?? '';
    // Unsigned: the page server's bytes pushed under a name nobody signed.
    await run('docker', ['tag', developmentImage('maintpage-page-server'), `${host}/k8s-operators/unsigned:1`]);
    await run('docker', ['push', '--quiet', `${host}/k8s-operators/unsigned:1`]);
    const unsigned = await verify([`${host}/k8s-operators/unsigned:1`]);
    expect(unsigned.code).not.toBe(0);
    expect(unsigned.stderr).toMatch(/no signatures found|no matching signatures/i);

    // Pushed over: the page server's tag now names the operator's image, which nobody signed under that name.
    const pageServer = `${host}/${repository('maintpage-page-server')}:${VERSION}`;
    const before = await registry?.digestOf(repository('maintpage-page-server'), VERSION);
    await run('docker', ['tag', developmentImage('maintpage-operator'), pageServer]);
    await run('docker', ['push', '--quiet', pageServer]);
    expect(await registry?.digestOf(repository('maintpage-page-server'), VERSION)).not.toBe(before);
    const replaced = await verify([pageServer]);
    expect(replaced.code).not.toBe(0);
    expect(replaced.stderr).toMatch(/no signatures found|no matching signatures/i);
    // The digest the manifests pin still verifies: what they install is what was signed.
    expect((await verify([`${pageServer}@${before ?? ''}`])).code).toBe(0);

    const install = join(work, 'out', 'postgresql-operator', 'install.yaml');
    await appendFile(install, '# changed after signing\n');
    const edited = await verifyFile(install);
    expect(edited.code).not.toBe(0);
    expect(edited.stderr).toContain('invalid signature');
  });
});
