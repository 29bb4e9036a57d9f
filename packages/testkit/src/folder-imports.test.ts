import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderImportLoops } from './folder-imports.ts';

describe('folderImportLoops', () => {
  let src: string;
  beforeEach(async () => {
    src = await mkdtemp(join(tmpdir(), 'folder-imports-'));
  });
  afterEach(async () => {
    await rm(src, { recursive: true, force: true });
  });
  const write = async (path: string, text: string): Promise<void> => {
    await mkdir(dirname(join(src, path)), { recursive: true });
    await writeFile(join(src, path), text);
  };

  it('finds none when folders form layers, whatever the tests and the root files import', async () => {
    await write('api/spec.ts', "export const x = 1;\n");
    await write('desired/build.ts', "import { x } from '../api/spec.ts';\nexport const y = x;\n");
    await write('api/spec.test.ts', "import { y } from '../desired/build.ts';\n");
    await write('index.ts', "export * from './desired/build.ts';\n");
    expect(await folderImportLoops(src)).toEqual([]);
  });

  it('names the imports that close a loop, through nested folders and type imports', async () => {
    await write('api/resolved.ts', "import { name } from '../desired/names/object-names.ts';\n");
    await write('desired/names/object-names.ts', "import type { Spec } from '../../api/spec.ts';\n");
    await write('api/spec.ts', "export interface Spec { a: string }\n");
    expect(await folderImportLoops(src)).toEqual(['api, desired import each other: api/resolved.ts imports desired/ and desired/names/object-names.ts imports api/']);
  });

  it('finds a loop through three folders, and dynamic imports', async () => {
    await write('a/one.ts', "import '../b/two.ts';\n");
    await write('b/two.ts', "await import('../c/three.ts');\n");
    await write('c/three.ts', "import { z } from '../a/one.ts';\n");
    expect(await folderImportLoops(src)).toEqual(['a, b, c import each other: a/one.ts imports b/ and b/two.ts imports c/ and c/three.ts imports a/']);
  });
});

describe("every package's src/ in this repository", () => {
  const packages = fileURLToPath(new URL('../../', import.meta.url));
  it.each(readdirSync(packages).filter((name) => existsSync(join(packages, name, 'src'))))('%s: its folders form layers, no folder imports one that imports it', async (name) => {
    expect(await folderImportLoops(join(packages, name, 'src'))).toEqual([]);
  });
});
