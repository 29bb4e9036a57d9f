// The npm packages an image ships, read from its runtime tree (tools/images/runtime-tree.mjs lays it out as /app):
// every package directory under node_modules/, nested ones included, and the project's own packages under packages/.
// The tree itself is the truth here, not the lockfile: it is what `npm ci --omit=dev --workspace <operator>` installed
// in the image's build stage, less the workspace links the image does not carry.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface RuntimePackage {
  name: string;
  version: string;
  /** package.json's license, when it is a string. */
  license?: string;
  /** Where it is in the tree, relative to its root: node_modules/pg, packages/controller-core/node_modules/undici. */
  location: string;
  /** The npm registry's integrity (sha512-…) the install recorded in node_modules/.package-lock.json. */
  integrity?: string;
  /** One of the project's own packages (packages/<name>), not an npm registry package. */
  own: boolean;
}

interface Manifest { name?: unknown; version?: unknown; license?: unknown }
type Integrities = Readonly<Record<string, { integrity?: unknown } | undefined>>;

const readJson = async (file: string): Promise<unknown> => JSON.parse(await readFile(file, 'utf8')) as unknown;
const exists = (path: string): Promise<boolean> => lstat(path).then(() => true, () => false);

async function readPackage(root: string, location: string, own: boolean, integrities: Integrities): Promise<RuntimePackage> {
  const manifest = await readJson(join(root, location, 'package.json')) as Manifest;
  if (typeof manifest.name !== 'string' || typeof manifest.version !== 'string') throw new Error(`${join(root, location, 'package.json')} has no name and version`);
  const integrity = integrities[location]?.integrity;
  return {
    name: manifest.name, version: manifest.version, location, own,
    ...(typeof manifest.license === 'string' ? { license: manifest.license } : {}),
    ...(typeof integrity === 'string' ? { integrity } : {}),
  };
}

/** The package directories in `dir` (a node_modules): scopes opened, dot entries skipped, links skipped. */
async function packageDirs(root: string, dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    // npm links the workspace packages the image carries (node_modules/@k8s-operators/*); they are read from packages/.
    if (entry.isSymbolicLink() || !entry.isDirectory()) continue;
    if (entry.name.startsWith('@')) found.push(...await packageDirs(root, join(dir, entry.name)));
    else found.push(join(dir, entry.name));
  }
  return found;
}

/** Every package under `dir`'s node_modules, then under theirs, depth first. */
async function installedUnder(root: string, dir: string, integrities: Integrities): Promise<RuntimePackage[]> {
  const modules = join(dir, 'node_modules');
  if (!await exists(join(root, modules))) return [];
  const found: RuntimePackage[] = [];
  for (const location of await packageDirs(root, modules)) {
    found.push(await readPackage(root, location, false, integrities), ...await installedUnder(root, location, integrities));
  }
  return found;
}

/** The packages of the runtime tree at `root`, sorted by location. */
export async function runtimePackages(root: string): Promise<RuntimePackage[]> {
  const lockfile = join(root, 'node_modules', '.package-lock.json');
  const integrities = (await exists(lockfile) ? ((await readJson(lockfile)) as { packages?: Integrities }).packages : undefined) ?? {};
  const own = await exists(join(root, 'packages')) ? (await readdir(join(root, 'packages'))).map((name) => join('packages', name)) : [];
  const found = await installedUnder(root, '', integrities);
  for (const location of own) found.push(await readPackage(root, location, true, integrities), ...await installedUnder(root, location, integrities));
  return found.sort((a, b) => a.location.localeCompare(b.location));
}
