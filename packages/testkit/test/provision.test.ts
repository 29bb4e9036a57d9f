// The provisioning step: everything a test needs that is built once per machine is built by `npm run provision`,
// which `npm test` runs before any test, and never inside a test. Here with a small table of fake tools whose "builds"
// are shell scripts writing executables into a temporary cache, and with the real table's lookups on empty caches.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '../src/e2e.ts';
import { provision } from '../src/provision.ts';
import { findProvisionedTool, lookUpTool, PROVISIONED_TOOL_NAMES, PROVISIONED_TOOLS, ProvisionedToolMissing, type ProvisionedToolSpec } from '../src/provisioned-tools.ts';

let root: string;
beforeAll(async () => { root = await mkdtemp(join(tmpdir(), 'testkit-provision-')); });
afterAll(async () => { await rm(root, { recursive: true, force: true }); });

/**
 * A build script in the shape of the real ones: `--print-dir`/`--print-path` only prints where its tools go; otherwise
 * it records that it started, waits (bounded) for a file other builds create, writes its tools, and prints the path.
 */
async function fakeScript(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, `${name}.sh`);
  await writeFile(path, [
    '#!/usr/bin/env bash',
    'set -euo pipefail',
    `out="$FAKE_CACHE/${name}"`,
    'if [[ "${1:-}" == --print-* ]]; then echo "$out"; exit 0; fi',
    `echo "${name}: started" >&2`,
    `echo "$$" >> "$FAKE_CACHE/${name}.runs"`,
    'mkdir -p "$out"',
    body,
    'echo "$out"',
    '',
  ].join('\n'));
  await chmod(path, 0o755);
  return `${name}.sh`;
}

const executable = (path: string): string => `printf '#!/bin/sh\\necho ok\\n' > ${path}; chmod +x ${path}`;
/** Waits until `file` exists, at most 10 s, then fails: two builds that run side by side see each other start. */
const waitFor = (file: string): string => `for i in $(seq 100); do [[ -e "$FAKE_CACHE/${file}" ]] && break; sleep 0.1; done; [[ -e "$FAKE_CACHE/${file}" ]] || { echo "never saw ${file}" >&2; exit 9; }`;

async function fakeTable(scripts: string): Promise<Record<string, ProvisionedToolSpec>> {
  // A: one directory with two programs, asked for as two tools of one script (as prometheus and promtool are).
  const a = await fakeScript(scripts, 'a', `touch "$FAKE_CACHE/a.started"; ${waitFor('b.started')}; for p in "$@"; do ${executable('"$out/$p"')}; done`);
  // B: one program; it runs beside A, so each waits for the other to have started.
  const b = await fakeScript(scripts, 'b', `touch "$FAKE_CACHE/b.started"; ${waitFor('a.started')}; for i in 1 2 3; do echo "b: step $i" >&2; sleep 0.2; done; ${executable('"$out/b"')}`);
  const tool = (script: string, buildArgs: string[], programs: string[]): ProvisionedToolSpec =>
    ({ title: script, script, buildArgs, lookupArgs: ['--print-dir'], programs, neededBy: 'this test' });
  return { 'a-one': tool(a, ['one'], ['one']), 'a-two': tool(a, ['two'], ['two']), 'b': tool(b, [], ['b']) };
}

describe('npm run provision', () => {
  test('npm test provisions first and only then runs lint, typecheck and the tests', async () => {
    const scripts = (JSON.parse(await readFile(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const steps = (scripts.test ?? '').split(' && ');
    expect(steps).toHaveLength(2);
    expect(steps[0]).toBe(scripts.provision);
    expect(steps[0]).toContain('packages/testkit/src/provision-cli.ts');
    expect(steps[1]).toMatch(/nx run-many -t lint typecheck test/);
  });

  test('builds what is missing, scripts side by side and each script once for all its tools; then every tool is found, and a second run builds nothing', async () => {
    const scripts = await mkdtemp(join(root, 'scripts-'));
    const cache = await mkdtemp(join(root, 'cache-'));
    const table = await fakeTable(scripts);
    const env = { ...process.env, FAKE_CACHE: cache };
    for (const spec of Object.values(table)) expect((await lookUpTool(spec, scripts, env)).missing).toBeDefined();

    const lines: string[] = [];
    const result = await provision({ table, root: scripts, env, jobs: 2, progress: (line) => lines.push(line), summaryIntervalMs: 100 });

    expect(result.failures).toEqual([]);
    expect(result.built.sort()).toEqual(['a-one', 'a-two', 'b']);
    expect(result.found).toEqual({ 'a-one': join(cache, 'a', 'one'), 'a-two': join(cache, 'a', 'two'), 'b': join(cache, 'b', 'b') });
    // A ran once, asked for both of its tools; B ran beside it (each saw the other start, or it would have failed).
    expect((await readFile(join(cache, 'a.runs'), 'utf8')).trim().split('\n')).toHaveLength(1);
    expect((await readFile(join(cache, 'b.runs'), 'utf8')).trim().split('\n')).toHaveLength(1);
    expect(lines[0]).toBe('provision: building a-one, a-two, b once for this machine, 2 at a time (the first time takes long; each step reports every 15 s)');
    expect(lines).toContain('b: step 2');
    expect(lines.some((line) => /^provision: \d+ s: building .*b \d+ s/.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(/^provision: \d+ s: building -; done a-one\+a-two \d+ s, b \d+ s; waiting -$/);

    const again: string[] = [];
    const second = await provision({ table, root: scripts, env, progress: (line) => again.push(line) });
    expect(second.built).toEqual([]);
    expect(again).toEqual([]);
    expect((await readFile(join(cache, 'a.runs'), 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  test('one lane builds one script after the other, in the table\'s order', async () => {
    const scripts = await mkdtemp(join(root, 'scripts-'));
    const cache = await mkdtemp(join(root, 'cache-'));
    const first = await fakeScript(scripts, 'first', `touch "$FAKE_CACHE/first.done"; ${executable('"$out/p"')}`);
    const second = await fakeScript(scripts, 'second', `[[ -e "$FAKE_CACHE/first.done" ]] || { echo "second ran before first ended" >&2; exit 3; }; ${executable('"$out/p"')}`);
    const spec = (script: string): ProvisionedToolSpec => ({ title: script, script, buildArgs: [], lookupArgs: ['--print-dir'], programs: ['p'], neededBy: 'this test' });
    const result = await provision({ table: { first: spec(first), second: spec(second) }, root: scripts, env: { ...process.env, FAKE_CACHE: cache }, jobs: 1, progress: () => undefined });
    expect(result.failures).toEqual([]);
    expect(result.built).toEqual(['first', 'second']);
  });

  test('a failed build is reported with the end of its output, and the other builds still finish', async () => {
    const scripts = await mkdtemp(join(root, 'scripts-'));
    const cache = await mkdtemp(join(root, 'cache-'));
    const broken = await fakeScript(scripts, 'broken', 'echo "go: module example.com/x: not found" >&2; exit 4');
    const fine = await fakeScript(scripts, 'fine', executable('"$out/p"'));
    const spec = (script: string): ProvisionedToolSpec => ({ title: script, script, buildArgs: [], lookupArgs: ['--print-dir'], programs: ['p'], neededBy: 'this test' });
    const result = await provision({ table: { broken: spec(broken), fine: spec(fine) }, root: scripts, env: { ...process.env, FAKE_CACHE: cache }, progress: () => undefined });
    expect(result.found).toEqual({ fine: join(cache, 'fine', 'p') });
    expect(result.failures).toEqual([{ script: broken, tools: ['broken'], code: 4, tail: ['broken: started', 'go: module example.com/x: not found'] }]);
  });

  test('an unknown tool name is refused with the names there are', async () => {
    await expect(provision({ tools: ['promtol'], progress: () => undefined })).rejects.toThrow(`provision: no tool named promtol; the tools are: ${PROVISIONED_TOOL_NAMES.join(', ')}`);
  });
});

describe('what the tests find', () => {
  test('on a machine that has built nothing, every tool lookup fails at once naming the command that builds it, and builds nothing', async () => {
    const empty = await mkdtemp(join(root, 'empty-cache-'));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: empty, XDG_CACHE_HOME: empty };
    for (const tool of PROVISIONED_TOOL_NAMES) {
      const error = await findProvisionedTool(tool, env).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ProvisionedToolMissing);
      expect((error as Error).message).toContain(`${PROVISIONED_TOOLS[tool].title} is not on this machine (${empty}/`);
      expect((error as Error).message).toContain(`\`npm run provision -- ${tool}\``);
    }
    expect(await readdir(empty)).toEqual([]);
  });

  test('no test, benchmark or library code runs a build script itself: only the provisioning table names them', async () => {
    const scripts = new Set(Object.values(PROVISIONED_TOOLS).map((spec) => spec.script));
    for (const script of scripts) expect(existsSync(join(REPOSITORY_ROOT, script)), script).toBe(true);
    // Where a script's name may appear, and why: the table itself; the tests of build-control-plane.sh and
    // build-go-tool.sh themselves (fake builds, or tools already there, in temporary caches) and of the kind scripts and the Renovate configuration (which read its pinned
    // versions as text).
    const allowed = new Set([
      'packages/testkit/src/provisioned-tools.ts',
      'packages/testkit/test/binaries.test.ts',
      'packages/release/test/build-go-tool.test.ts',
      'packages/delivery/test/kind.test.ts',
      'packages/delivery/test/renovate.test.ts',
    ]);
    const offenders: string[] = [];
    const visit = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await visit(path);
        else if (entry.name.endsWith('.ts')) {
          const file = relative(REPOSITORY_ROOT, path);
          const text = await readFile(path, 'utf8');
          const named = [...scripts].filter((script) => text.includes(script.slice(script.lastIndexOf('/', script.lastIndexOf('/') - 1) + 1)));
          if (named.length > 0 && !allowed.has(file)) offenders.push(`${file}: ${named.join(', ')}`);
        }
      }
    };
    await visit(join(REPOSITORY_ROOT, 'packages'));
    await visit(join(REPOSITORY_ROOT, 'tools'));
    expect(offenders).toEqual([]);
  });
});
