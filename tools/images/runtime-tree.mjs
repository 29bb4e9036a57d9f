// Lays out what an image runs, inside the image's build stage, after `npm ci --omit=dev --workspace <package>`:
//   node tools/images/runtime-tree.mjs <out> <package dir> [--no-dependencies]
// <out> gets the package's package.json and dist/, the same of every workspace package it depends on (transitively),
// each with its own node_modules/ (npm nests a dependency there when versions differ across the workspace, as it does
// for undici), and the root node_modules/ without links to workspace packages the image does not carry.
// --no-dependencies: the package's package.json and dist/ only, for an entry point that imports no npm package (the
// maintenance page server); the image check starts it, so a missing import fails a test.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const [out, packageDir, ...flags] = process.argv.slice(2);
if (!out || !packageDir || flags.some((f) => f !== '--no-dependencies')) {
  process.stderr.write('usage: runtime-tree.mjs <out> <package dir> [--no-dependencies]\n');
  process.exit(2);
}
const withDependencies = !flags.includes('--no-dependencies');

const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const workspaceDirs = new Map(readdirSync('packages').map((name) => [readManifest(join('packages', name)).name, join('packages', name)]));

/** The package and every workspace package it depends on at run time. */
function closure(dir, seen = new Set()) {
  if (seen.has(dir)) return seen;
  seen.add(dir);
  if (!withDependencies) return seen;
  for (const name of Object.keys(readManifest(dir).dependencies ?? {})) {
    const dependency = workspaceDirs.get(name);
    if (dependency) closure(dependency, seen);
  }
  return seen;
}

// Source maps and declarations are for development; the image runs dist/*.js only.
const runtimeFile = (path) => !/\.(map|d\.ts|tsbuildinfo)$/.test(path);
const carried = closure(packageDir.replace(/\/+$/, ''));
for (const dir of carried) {
  cpSync(join(dir, 'package.json'), join(out, dir, 'package.json'));
  cpSync(join(dir, 'dist'), join(out, dir, 'dist'), { recursive: true, filter: runtimeFile });
  if (withDependencies && existsSync(join(dir, 'node_modules'))) cpSync(join(dir, 'node_modules'), join(out, dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
}
if (withDependencies) {
  cpSync('node_modules', join(out, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  // npm links every workspace package (tools/ too) into node_modules; keep the links to the ones carried.
  const carriedNames = new Set([...carried].map((dir) => readManifest(dir).name));
  const scope = join(out, 'node_modules', '@k8s-operators');
  for (const entry of existsSync(scope) ? readdirSync(scope) : []) {
    if (!carriedNames.has(`@k8s-operators/${entry}`)) rmSync(join(scope, entry), { force: true, recursive: true });
  }
  rmSync(join(out, 'node_modules', '.bin'), { force: true, recursive: true });
}
process.stdout.write(`runtime tree of ${packageDir}: ${[...carried].join(', ')}${withDependencies ? ' and node_modules' : ''}\n`);
