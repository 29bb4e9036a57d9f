// renovate.json, read the way Renovate reads it: each custom manager's file patterns and regexes run over the
// repository, and each package rule's names, so that no pin is missed and pins that must move together share a group.
// (Renovate's regexes are RE2; the ones here use only syntax RE2 and JavaScript read alike: named groups, classes.)
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { REPOSITORY_ROOT } from '@k8s-operators/testkit';

const run = promisify(execFile);

interface CustomManager { customType: string; managerFilePatterns: string[]; matchStrings: string[]; datasourceTemplate?: string }
interface PackageRule { matchPackageNames?: string[]; matchDatasources?: string[]; matchFileNames?: string[]; groupName?: string; enabled?: boolean }
interface RenovateConfig { customManagers: CustomManager[]; packageRules: PackageRule[] }
interface Pin { file: string; datasource: string; depName: string; currentValue: string; currentDigest?: string }

const config = async (): Promise<RenovateConfig> => JSON.parse(await readFile(join(REPOSITORY_ROOT, 'renovate.json'), 'utf8')) as RenovateConfig;

/** Renovate's `/…/` pattern strings as regular expressions (a plain string would be a glob; none is used here). */
function pattern(text: string): RegExp {
  const match = /^\/(.*)\/([a-z]*)$/.exec(text);
  if (match?.[1] === undefined) throw new Error(`renovate.json: ${text} is not a /regex/ pattern`);
  return new RegExp(match[1], match[2]);
}

async function trackedFiles(): Promise<string[]> {
  const { stdout } = await run('git', ['-C', REPOSITORY_ROOT, 'ls-files', '--cached', '--others', '--exclude-standard'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.split('\n').filter((f) => f !== '');
}

/** Every dependency the custom managers extract, as Renovate's regex manager does (matchStringsStrategy "any"). */
async function extractedPins(): Promise<Pin[]> {
  const files = await trackedFiles();
  const pins: Pin[] = [];
  for (const manager of (await config()).customManagers) {
    expect(manager.customType).toBe('regex');
    const matched = files.filter((file) => manager.managerFilePatterns.some((p) => pattern(p).test(file)));
    expect(matched.length, manager.managerFilePatterns.join(' ')).toBeGreaterThan(0);
    for (const file of matched) {
      const text = await readFile(join(REPOSITORY_ROOT, file), 'utf8').catch(() => '');
      for (const source of manager.matchStrings) {
        for (const match of text.matchAll(new RegExp(source, 'g'))) {
          const groups = match.groups ?? {};
          pins.push({
            file, datasource: groups.datasource ?? manager.datasourceTemplate ?? '', depName: groups.depName ?? '', currentValue: groups.currentValue ?? '',
            ...(groups.currentDigest === undefined ? {} : { currentDigest: groups.currentDigest }),
          });
        }
      }
    }
  }
  return pins;
}

const glob = (name: string, p: string): boolean => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '.*').replace(/(?<!\.)\*/g, '[^/]*')}$`).test(name);

/** The group Renovate would put a dependency in: the last matching rule with a groupName wins, as later rules do. */
function groupOf(rules: readonly PackageRule[], depName: string, datasource: string): string | undefined {
  let group: string | undefined;
  for (const rule of rules) {
    const names = rule.matchPackageNames === undefined || rule.matchPackageNames.some((p) => glob(depName, p));
    const sources = rule.matchDatasources === undefined || rule.matchDatasources.includes(datasource);
    if (names && sources && rule.groupName !== undefined) group = rule.groupName;
  }
  return group;
}

test('every version a script, env file or workflow pins is found, with the value written there', async () => {
  const pins = await extractedPins();
  const files = await trackedFiles();
  // What a pin looks like in those files: NAME_VERSION=… (shell, env) and the e2e workflow's kubectl_version.
  const written: { file: string; value: string }[] = [];
  for (const file of files.filter((f) => /\.sh$|versions\.env$|^\.github\/workflows\//.test(f))) {
    const text = await readFile(join(REPOSITORY_ROOT, file), 'utf8').catch(() => '');
    for (const match of text.matchAll(/^\s*(?:[A-Z_]*_VERSION=|kubectl_version:\s*)(v?\d[^\s#"]*)/gm)) written.push({ file, value: match[1] ?? '' });
  }
  expect(written.length).toBeGreaterThan(15);
  const missed = written.filter((w) => !pins.some((p) => p.file === w.file && p.currentValue === w.value));
  expect(missed).toEqual([]);
  for (const pin of pins) expect(['go', 'github-tags', 'github-releases', 'node-version', 'npm', 'docker'], `${pin.file} ${pin.depName}`).toContain(pin.datasource);
});

test("kind's node image is found with its digest", async () => {
  const kind = (await extractedPins()).filter((p) => p.file === 'kind/cluster.yaml');
  expect(kind).toEqual([expect.objectContaining({ depName: 'kindest/node', datasource: 'docker', currentDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown })]);
});

test("a tool's script pin and its module's go.mod move in one PR; so do all of Kubernetes", async () => {
  const { packageRules } = await config();
  const pins = await extractedPins();
  // Every Go pin is in a group: the gomod manager updates the module's go.mod under the same name, so they meet there.
  for (const pin of pins.filter((p) => p.datasource === 'go')) {
    expect(groupOf(packageRules, pin.depName, pin.datasource), `${pin.file} ${pin.depName}`).toBeDefined();
  }
  // One thing pinned under two names (a release's tags, its Go module) is one group.
  const twoNames: [string, string, string, string][] = [
    ['kubernetes/kubernetes', 'github-tags', 'k8s.io/kubernetes', 'go'],
    ['prometheus/prometheus', 'github-releases', 'github.com/prometheus/prometheus', 'go'],
  ];
  for (const [name, datasource, module, moduleDatasource] of twoNames) {
    expect(pins.some((p) => p.depName === name), name).toBe(true);
    expect(groupOf(packageRules, name, datasource), name).toBe(groupOf(packageRules, module, moduleDatasource));
  }
  const kubernetes = pins.filter((p) => /KUBERNETES|kubectl|kindest|kind$/.test(p.depName) || p.depName === 'kubernetes/kubernetes' || p.depName === 'sigs.k8s.io/kind' || p.depName === 'k8s.io/api');
  expect(kubernetes.map((p) => p.file).sort()).toEqual(expect.arrayContaining(['.github/workflows/e2e.yml', 'kind/cluster.yaml', 'kind/node-image/versions.env', 'packages/testkit/scripts/build-control-plane.sh']));
  for (const pin of kubernetes) expect(groupOf(packageRules, pin.depName, pin.datasource), `${pin.file} ${pin.depName}`).toBe('Kubernetes');
  // And a rule must be able to fail: an unrelated module is not pulled into Kubernetes.
  expect(groupOf(packageRules, 'filippo.io/age', 'go')).toBe('Go-built tools');
});

test('the older Kubernetes minors of the kind e2e are left to pin-kubernetes-minor.sh: found, and not moved one by one', async () => {
  const { packageRules } = await config();
  const disabled = (file: string): boolean => packageRules.some((rule) => rule.enabled === false && rule.matchFileNames?.some((p) => glob(file, p)) === true);
  const pins = (await extractedPins()).filter((p) => p.file.startsWith('kind/node-image/kubernetes/'));
  // KUBERNETES_VERSION, ETCD_VERSION and COREDNS_VERSION of each pinned minor.
  expect(pins.length).toBeGreaterThanOrEqual(9);
  for (const pin of pins) expect(disabled(pin.file), pin.file).toBe(true);
  // The gomod manager reads the same minors' modules; the project's own minor keeps moving.
  const files = await trackedFiles();
  const minorModules = files.filter((f) => /^kind\/node-image\/kubernetes\/[^/]+\/modules\/[^/]+\/go\.mod$/.test(f));
  expect(minorModules.length).toBeGreaterThanOrEqual(9);
  for (const file of minorModules) expect(disabled(file), file).toBe(true);
  for (const file of ['kind/node-image/versions.env', 'kind/node-image/modules/k8s/go.mod', 'packages/testkit/scripts/build-control-plane.sh']) expect(disabled(file), file).toBe(false);
});
