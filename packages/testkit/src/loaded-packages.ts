import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * The npm packages a program loads, for tests that keep a runtime lean (an operator that imports its CRD schemas loads
 * TypeBox, 6-10 MiB of RSS, for nothing). Runs `node --conditions=source <entry> ...args` (args such as `--help`
 * that make it exit once its static imports are loaded) under a resolve hook and returns the package names it resolved,
 * e.g. `pino`, `@kubernetes/client-node`. Workspace packages resolve to their own directories and are not listed.
 */
export async function packagesLoadedBy(entry: string, args: readonly string[] = []): Promise<Set<string>> {
  const hook = fileURLToPath(
    new URL(import.meta.url.endsWith('.ts') ? './loaded-packages-hook.ts' : './loaded-packages-hook.js', import.meta.url),
  );
  const directory = await mkdtemp(join(tmpdir(), 'loaded-packages-'));
  const log = join(directory, 'urls');
  try {
    await promisify(execFile)(process.execPath, ['--conditions=source', '--import', hook, entry, ...args], {
      env: { ...process.env, TESTKIT_LOADED_PACKAGES_LOG: log },
    });
    const urls = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
    return new Set(urls.map(packageOf));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** `file:///…/node_modules/@scope/name/dist/x.js` → `@scope/name`; `…/node_modules/name/x.js` → `name`. */
function packageOf(url: string): string {
  const path = url.slice(url.lastIndexOf('/node_modules/') + '/node_modules/'.length).split('/');
  return path[0]?.startsWith('@') === true ? `${path[0]}/${path[1] ?? ''}` : (path[0] ?? '');
}
