// A release pushed and signed as its maintainer would make it, against a registry on loopback: `npm run release --
// --push --sign-key` builds the images for the registry, pushes them, pins the digests the registry returned in every
// install.yaml and chart, signs each image and install.yaml with cosign, and attaches each image's SBOM and provenance
// as signed attestations. Then what a user does: `cosign verify` and `cosign verify-attestation` pass on all of it
// (the attestations say what the release put in them), and fail with another key, on an image pushed unsigned, on a
// tag pushed over after signing, and on an install.yaml changed after signing.
import { execFile } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { engineAvailable, findProvisionedTool, projectImageMode, REPOSITORY_ROOT, runCommand, type CommandResult } from '@k8s-operators/testkit';
import { BUILD_TYPE, LOCAL_BUILDER } from '../src/attest/provenance.ts';
import { developmentImage } from '../src/release-images.ts';
import { releaseImageNames } from '../src/release.ts';
import { RELEASED_OPERATORS } from '../src/released-operators.ts';
import { offlineCosignFlags } from '../src/sign-release.ts';
import { startLocalRegistry, type LocalRegistry } from './local-registry.ts';
import { parseObjects } from './release-fixture.ts';

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
// The repository's commit and whether its tree had changes, before and after the release ran (others may commit or
// edit meanwhile): the provenance must name what it was at the start.
const source: { commit: string; dirty: boolean }[] = [];
const sourceNow = async (): Promise<{ commit: string; dirty: boolean }> => ({
  commit: (await run('git', ['-C', REPOSITORY_ROOT, 'rev-parse', 'HEAD'])).stdout.trim(),
  dirty: (await run('git', ['-C', REPOSITORY_ROOT, 'status', '--porcelain'], { maxBuffer: 16 * 1024 * 1024 })).stdout.trim() !== '',
});

interface Statement { subject: { name: string; digest: { sha256: string } }[]; predicateType: string; predicate: Record<string, unknown> }
interface SpdxPackage { name: string }

describe.runIf(engineMode)('a release pushed and signed', () => {
  beforeAll(async () => {
    cosign = await findProvisionedTool('cosign');
    registry = await startLocalRegistry();
    work = await mkdtemp(join(tmpdir(), 'release-signed-'));
    offline = (await offlineCosignFlags(work)).verify;
    await run(cosign, ['generate-key-pair'], { cwd: work, env: { ...process.env, ...env } });
    await mkdir(join(work, 'other'));
    await run(cosign, ['generate-key-pair'], { cwd: join(work, 'other'), env: { ...process.env, ...env } });
    source.push(await sourceNow());
    released = await runCommand(process.execPath, [
      '--conditions=source', join(REPOSITORY_ROOT, 'packages/release/src/cli.ts'),
      '--version', VERSION, '--registry', `${registry.host}/k8s-operators`, '--push', '--sign-key', join(work, 'cosign.key'), '--out', join(work, 'out'),
    ], env);
    source.push(await sourceNow());
  }, 900_000);
  afterAll(async () => {
    await registry?.stop();
    // The tags this file made in the engine; the images' layers stay shared with the development tags.
    const host = registry?.host ?? '';
    for (const name of [...releaseImageNames().map((n) => `${host}/${repository(n)}:${VERSION}`), `${host}/k8s-operators/unsigned:1`]) {
      await run('docker', ['image', 'rm', name]).catch(() => undefined);
    }
    // A push also records the digest in the engine (RepoDigests), which outlives the tag: the digests left under this
    // registry's host too (the page server's first push, which the test pushed over).
    const listed = await run('docker', ['image', 'ls', '--digests', '--format', '{{.Repository}}@{{.Digest}}']).catch(() => ({ stdout: '' }));
    for (const reference of listed.stdout.split('\n').filter((r) => host !== '' && r.startsWith(`${host}/`) && !r.endsWith('@<none>'))) {
      await run('docker', ['image', 'rm', reference]).catch(() => undefined);
    }
    if (work !== '') await rm(work, { recursive: true, force: true });
  });

  const verify = (args: readonly string[]): Promise<CommandResult> => runCommand(cosign, ['verify', '--key', join(work, 'cosign.pub'), '--insecure-ignore-tlog=true', ...offline, ...args]);
  /** `cosign verify-attestation`; on success, the in-toto statements it verified (one a line, DSSE-enveloped). */
  const verifyAttestation = async (type: string, image: string, key = join(work, 'cosign.pub')): Promise<CommandResult & { statements: Statement[] }> => {
    const result = await runCommand(cosign, ['verify-attestation', '--key', key, '--insecure-ignore-tlog=true', ...offline, '--type', type, image]);
    const envelopes = result.code === 0 ? result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { payload: string }) : [];
    return { ...result, statements: envelopes.map((e) => JSON.parse(Buffer.from(e.payload, 'base64').toString('utf8')) as Statement) };
  };
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

  test('each image carries its SBOM and its provenance, which verify with the public key and not with another', async () => {
    const host = registry?.host ?? '';
    for (const name of releaseImageNames()) {
      const digest = (await registry?.digestOf(repository(name), VERSION)) ?? '';
      const pinned = `${host}/${repository(name)}@${digest}`;
      const sbom = await verifyAttestation('spdxjson', pinned);
      expect(sbom.code, `${name}: ${sbom.stderr}`).toBe(0);
      expect(sbom.statements.map((s) => s.predicateType), name).toEqual(['https://spdx.dev/Document']);
      const [document] = sbom.statements;
      expect(document?.subject).toEqual([{ name: `${host}/${repository(name)}`, digest: { sha256: digest.replace('sha256:', '') } }]);
      const listed = (document?.predicate.packages as SpdxPackage[]).map((p) => p.name);
      // What the image ships: its operator's package (the page server's too), never the test kit the workspace links.
      const own = `@k8s-operators/${name === 'maintpage-page-server' ? 'maintpage-operator' : name}`;
      expect(listed, name).toContain(own);
      expect(listed, name).not.toContain('@k8s-operators/testkit');
      if (name === 'maintpage-page-server') {
        // It imports Node's own modules only: its image has no node_modules.
        expect(listed, name).toEqual([name, own]);
      } else {
        expect(listed, name).toEqual(expect.arrayContaining(['@kubernetes/client-node', '@k8s-operators/controller-core', 'prom-client']));
      }
      if (name === 'postgresql-operator') expect(listed).toEqual(expect.arrayContaining(['pg', '@aws-sdk/client-s3', 'age-encryption']));

      const provenance = await verifyAttestation('slsaprovenance1', pinned);
      expect(provenance.code, `${name}: ${provenance.stderr}`).toBe(0);
      expect(provenance.statements.map((s) => s.predicateType), name).toEqual(['https://slsa.dev/provenance/v1']);
      const predicate = provenance.statements[0]?.predicate as {
        buildDefinition: { buildType: string; externalParameters: { version: string; registry: string; image: string; source: { gitCommit: string; dirty: boolean } } };
        runDetails: { builder: { id: string }; byproducts?: unknown };
      };
      expect(predicate.buildDefinition.buildType).toBe(BUILD_TYPE);
      expect(predicate.runDetails.builder.id).toBe(LOCAL_BUILDER);
      expect(predicate.runDetails.byproducts).toBeUndefined();
      const { version, registry: pushedTo, image, source: built } = predicate.buildDefinition.externalParameters;
      expect({ version, pushedTo, image }).toEqual({ version: VERSION, pushedTo: `${host}/k8s-operators`, image: name });
      expect(source.map((s) => s.commit)).toContain(built.gitCommit);
      if (source[0]?.dirty === source[1]?.dirty) expect(built.dirty).toBe(source[0]?.dirty);

      const otherKey = await verifyAttestation('spdxjson', pinned, join(work, 'other', 'cosign.pub'));
      expect(otherKey.code, name).not.toBe(0);
      expect(otherKey.stderr).toMatch(/no matching attestations/);
    }
  });

  test('verification fails on an image pushed unsigned and unattested, a tag pushed over after signing, and an edited install.yaml', async () => {
    const host = registry?.host ?? '';
    // Unsigned: the page server's bytes pushed under a name nobody signed.
    await run('docker', ['tag', developmentImage('maintpage-page-server'), `${host}/k8s-operators/unsigned:1`]);
    await run('docker', ['push', '--quiet', `${host}/k8s-operators/unsigned:1`]);
    const unsigned = await verify([`${host}/k8s-operators/unsigned:1`]);
    expect(unsigned.code).not.toBe(0);
    expect(unsigned.stderr).toMatch(/no signatures found|no matching signatures/i);
    for (const type of ['spdxjson', 'slsaprovenance1']) {
      const unattested = await verifyAttestation(type, `${host}/k8s-operators/unsigned:1`);
      expect(unattested.code, type).not.toBe(0);
      expect(unattested.stderr, type).toMatch(/no matching attestations/);
    }

    // Pushed over: the page server's tag now names the operator's image, which nobody signed under that name.
    const pageServer = `${host}/${repository('maintpage-page-server')}:${VERSION}`;
    const before = await registry?.digestOf(repository('maintpage-page-server'), VERSION);
    await run('docker', ['tag', developmentImage('maintpage-operator'), pageServer]);
    await run('docker', ['push', '--quiet', pageServer]);
    expect(await registry?.digestOf(repository('maintpage-page-server'), VERSION)).not.toBe(before);
    const replaced = await verify([pageServer]);
    expect(replaced.code).not.toBe(0);
    expect(replaced.stderr).toMatch(/no signatures found|no matching signatures/i);
    expect((await verifyAttestation('slsaprovenance1', pageServer)).code).not.toBe(0);
    // The digest the manifests pin still verifies: what they install is what was signed.
    expect((await verify([`${pageServer}@${before ?? ''}`])).code).toBe(0);

    const install = join(work, 'out', 'postgresql-operator', 'install.yaml');
    await appendFile(install, '# changed after signing\n');
    const edited = await verifyFile(install);
    expect(edited.code).not.toBe(0);
    expect(edited.stderr).toContain('invalid signature');
  });
});
