import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packagesLoadedBy } from './loaded-packages.ts';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loaded-packages-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** The file URL of one of testkit's dependencies, so that the program can live outside the repository. */
const urlOf = (name: string): string => pathToFileURL(createRequire(import.meta.url).resolve(name)).href;

describe('packagesLoadedBy', () => {
  it('names the npm packages a program loads statically, scoped ones included, and none it does not', async () => {
    const entry = join(directory, 'entry.mjs');
    await writeFile(
      entry,
      `import '${urlOf('yaml')}';\nimport '${urlOf('@kubernetes/client-node')}';\n` +
        `if (process.argv.includes('--pg')) await import('${urlOf('pg')}');\n`,
    );
    const loaded = await packagesLoadedBy(entry);
    expect(loaded).toContain('yaml');
    expect(loaded).toContain('@kubernetes/client-node');
    expect(loaded).not.toContain('pg');
    expect(await packagesLoadedBy(entry, ['--pg'])).toContain('pg');
  });

  it('fails when the program fails', async () => {
    const entry = join(directory, 'entry.mjs');
    await writeFile(entry, 'process.exit(3);\n');
    await expect(packagesLoadedBy(entry)).rejects.toThrow(/Command failed/);
  });
});
