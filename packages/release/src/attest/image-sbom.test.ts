// The SBOM's reading of a runtime tree laid out as tools/images/runtime-tree.mjs lays it out, on a real directory:
// nested and scoped packages found, workspace links and npm's own files skipped, the project's packages marked, and
// the SPDX document they make. (test/signed-release.test.ts reads the real images' trees.)
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spdxDocument } from './image-sbom.ts';
import { runtimePackages } from './runtime-packages.ts';

let root = '';
const write = async (path: string, value: unknown): Promise<void> => {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), JSON.stringify(value));
};
const INTEGRITY = `sha512-${Buffer.alloc(64, 1).toString('base64')}`;

describe('the npm packages of a runtime tree', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'release-sbom-test-'));
    await write('packages/op/package.json', { name: '@k8s-operators/op', version: '0.1.0', license: 'Apache-2.0' });
    await write('packages/core/package.json', { name: '@k8s-operators/core', version: '0.1.0' });
    await write('packages/core/node_modules/undici/package.json', { name: 'undici', version: '8.0.0', license: 'MIT' });
    await write('node_modules/pg/package.json', { name: 'pg', version: '8.23.1', license: 'MIT' });
    await write('node_modules/pg/node_modules/pg-types/package.json', { name: 'pg-types', version: '2.2.0', license: 'SEE LICENSE IN LICENSE' });
    await write('node_modules/@aws-sdk/core/package.json', { name: '@aws-sdk/core', version: '3.1.0', license: '(MIT OR Apache-2.0)' });
    await write('node_modules/undici/package.json', { name: 'undici', version: '7.0.0', license: { type: 'MIT' } });
    await write('node_modules/.package-lock.json', { packages: { 'node_modules/pg': { integrity: INTEGRITY } } });
    await mkdir(join(root, 'node_modules/.bin'));
    await mkdir(join(root, 'node_modules/@k8s-operators'));
    await symlink('../../packages/op', join(root, 'node_modules/@k8s-operators/op'));
  });
  afterAll(async () => { if (root !== '') await rm(root, { recursive: true, force: true }); });

  test('lists every installed package once, where it is, and the project\'s own packages as such', async () => {
    const found = await runtimePackages(root);
    expect(found.map((p) => [p.location, `${p.name}@${p.version}`, p.own])).toEqual([
      ['node_modules/@aws-sdk/core', '@aws-sdk/core@3.1.0', false],
      ['node_modules/pg', 'pg@8.23.1', false],
      ['node_modules/pg/node_modules/pg-types', 'pg-types@2.2.0', false],
      ['node_modules/undici', 'undici@7.0.0', false],
      ['packages/core', '@k8s-operators/core@0.1.0', true],
      ['packages/core/node_modules/undici', 'undici@8.0.0', false],
      ['packages/op', '@k8s-operators/op@0.1.0', true],
    ]);
    expect(found.find((p) => p.name === 'pg')?.integrity).toBe(INTEGRITY);
  });

  test('the SPDX document: the image CONTAINS each package, with licenses, purls and checksums where known', async () => {
    const image = { registry: 'ghcr.io/acme', name: 'op', digest: `sha256:${'a'.repeat(64)}` };
    const document = spdxDocument(image, await runtimePackages(root)) as { packages: Record<string, unknown>[]; relationships: Record<string, string>[]; documentDescribes: string[] };
    const byName = (name: string, version?: string): Record<string, unknown> | undefined =>
      document.packages.find((p) => p.name === name && (version === undefined || p.versionInfo === version));
    expect(document.documentDescribes).toEqual(['SPDXRef-Image']);
    expect(byName('op')).toMatchObject({ SPDXID: 'SPDXRef-Image', versionInfo: image.digest, primaryPackagePurpose: 'CONTAINER' });
    expect(byName('pg')).toMatchObject({
      licenseDeclared: 'MIT', packageFileName: '/app/node_modules/pg',
      externalRefs: [{ referenceType: 'purl', referenceLocator: 'pkg:npm/pg@8.23.1' }],
      checksums: [{ algorithm: 'SHA512', checksumValue: '01'.repeat(64) }],
    });
    expect(byName('@aws-sdk/core')).toMatchObject({ licenseDeclared: '(MIT OR Apache-2.0)', externalRefs: [{ referenceLocator: 'pkg:npm/%40aws-sdk/core@3.1.0' }] });
    // Not an SPDX expression, or no string at all: no assertion rather than a wrong one.
    expect(byName('pg-types')?.licenseDeclared).toBe('NOASSERTION');
    expect(byName('undici', '7.0.0')?.licenseDeclared).toBe('NOASSERTION');
    expect(byName('@k8s-operators/op')).toMatchObject({ primaryPackagePurpose: 'APPLICATION' });
    expect(byName('@k8s-operators/op')?.externalRefs).toBeUndefined();
    const ids = document.packages.map((p) => p.SPDXID as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^SPDXRef-[A-Za-z0-9.-]+$/);
    expect(document.relationships.filter((r) => r.relationshipType === 'CONTAINS').map((r) => r.relatedSpdxElement)).toEqual(ids.slice(1));
  });
});
