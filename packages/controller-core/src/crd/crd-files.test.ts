import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from 'typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { committedCrdDifference, writeCrdFiles, type CrdFiles } from './crd-files.ts';
import { defineCustomResource } from './define-custom-resource.ts';

const Sprocket = defineCustomResource({
  group: 'sprockets.example.com',
  kind: 'Sprocket',
  plural: 'sprockets',
  scope: 'Namespaced',
  versions: [{ name: 'v1', spec: Type.Object({ teeth: Type.Integer({ minimum: 3 }) }), status: Type.Object({}) }],
});

describe('an operator\'s CrdFiles', () => {
  let files: CrdFiles;
  beforeEach(async () => {
    files = { directory: await mkdtemp(join(tmpdir(), 'crd-files-')), regenerateCommand: 'npm run crds -w sprocket-operator', resources: [Sprocket] };
  });
  afterEach(async () => {
    await rm(files.directory, { recursive: true, force: true });
  });

  it('compare equal to what writeCrdFiles wrote', async () => {
    expect(await writeCrdFiles(files)).toEqual([join(files.directory, 'sprockets.example.com_sprockets.yaml')]);
    expect(await committedCrdDifference(files, Sprocket)).toBeUndefined();
  });

  it('name the regenerate command when the committed file is stale or missing', async () => {
    expect(await committedCrdDifference(files, Sprocket)).toContain('Regenerate it with: npm run crds -w sprocket-operator');
    await writeFile(join(files.directory, 'sprockets.example.com_sprockets.yaml'), 'kind: CustomResourceDefinition\n');
    expect(await committedCrdDifference(files, Sprocket)).toContain('sprockets.example.com_sprockets.yaml is out of date with the Sprocket schema in code');
  });
});
