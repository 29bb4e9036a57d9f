import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { folderImportLoops } from './folder-imports.ts';

/** A src/ tree of these files (path: text) in a temporary directory, removed when the test ends. */
async function sourceTree(files: Record<string, string>): Promise<string> {
  const src = await mkdtemp(join(tmpdir(), 'folder-imports-'));
  onTestFinished(() => rm(src, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(src, path)), { recursive: true });
    await writeFile(join(src, path), text);
  }
  return src;
}

describe('folderImportLoops', () => {
  it.each<{ tree: string; files: Record<string, string>; loops: string[] }>([
    {
      tree: 'folders in layers, whatever the tests and the root files import',
      files: {
        'api/spec.ts': 'export const x = 1;\n',
        'desired/build.ts': "import { x } from '../api/spec.ts';\nexport const y = x;\n",
        'api/spec.test.ts': "import { y } from '../desired/build.ts';\n",
        'index.ts': "export * from './desired/build.ts';\n",
      },
      loops: [],
    },
    {
      tree: 'a loop through a nested folder and a type import',
      files: {
        'api/resolved.ts': "import { name } from '../desired/names/object-names.ts';\n",
        'desired/names/object-names.ts': "import type { Spec } from '../../api/spec.ts';\n",
        'api/spec.ts': 'export interface Spec { a: string }\n',
      },
      loops: ['api, desired import each other: api/resolved.ts imports desired/ and desired/names/object-names.ts imports api/'],
    },
    {
      tree: 'a loop through three folders and a dynamic import',
      files: {
        'a/one.ts': "import '../b/two.ts';\n",
        'b/two.ts': "await import('../c/three.ts');\n",
        'c/three.ts': "import { z } from '../a/one.ts';\n",
      },
      loops: ['a, b, c import each other: a/one.ts imports b/ and b/two.ts imports c/ and c/three.ts imports a/'],
    },
  ])('$tree', async ({ files, loops }) => {
    expect(await folderImportLoops(await sourceTree(files))).toEqual(loops);
  });
});

describe("every package's src/ in this repository", () => {
  const packages = fileURLToPath(new URL('../../', import.meta.url));
  it.each(readdirSync(packages).filter((name) => existsSync(join(packages, name, 'src'))))('%s: its folders form layers, no folder imports one that imports it', async (name) => {
    expect(await folderImportLoops(join(packages, name, 'src'))).toEqual([]);
  });
});
