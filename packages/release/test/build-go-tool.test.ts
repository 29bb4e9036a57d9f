// npm run provision asks one build script for all of its missing tools at once (packages/testkit/src/provision.ts: one
// build per script): build-go-tool.sh must take helm, cosign and registry together. A cold-cache run found it built only
// the first and left the signing tests without cosign and the registry. Here the three are already in the cache (empty
// stand-ins), so the script only has to find each and say where it is: no Go build runs.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

const run = promisify(execFile);
const script = join(REPOSITORY_ROOT, 'packages/release/scripts/build-go-tool.sh');
let cache: string | undefined;
afterAll(async () => {
  if (cache !== undefined) await rm(cache, { recursive: true, force: true });
});

/** The version a tool is pinned at: build-go-tool.sh's own pins, and kind's for the registry. */
async function pinned(tool: 'helm' | 'cosign' | 'registry'): Promise<string> {
  const text = tool === 'registry' ? await readFile(join(REPOSITORY_ROOT, 'kind/node-image/versions.env'), 'utf8') : await readFile(script, 'utf8');
  const variable = { helm: 'HELM_VERSION', cosign: 'COSIGN_VERSION', registry: 'REGISTRY_VERSION' }[tool];
  const version = new RegExp(`^${variable}=(\\S+)$`, 'm').exec(text)?.[1];
  if (version === undefined) throw new Error(`no ${variable} pin found`);
  return version;
}

test('asked for several tools at once, as provisioning asks, it provides each of them', async () => {
  cache = await mkdtemp(join(tmpdir(), 'release-tools-'));
  const tools = ['helm', 'cosign', 'registry'] as const;
  const paths: string[] = [];
  for (const tool of tools) {
    const dir = join(cache, `${tool}-${await pinned(tool)}`);
    await mkdir(dir);
    await writeFile(join(dir, tool), '#!/bin/sh\n');
    await chmod(join(dir, tool), 0o755);
    paths.push(join(dir, tool));
  }
  const { stdout } = await run('bash', [script, ...tools], { env: { ...process.env, OPERATORS_RELEASE_TOOLS_CACHE: cache } });
  expect(stdout.trim().split('\n')).toEqual(paths);
});
