import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseImageDigests, parseReleaseOptions, readImageDigests } from './release-options.ts';

test('a release needs a semantic version and takes the registry and the output directory', () => {
  expect(parseReleaseOptions(['--version', '0.2.0'], '/repo')).toEqual({ version: '0.2.0', registry: 'ghcr.io/k8s-operators', outDir: '/repo/dist/release-0.2.0', push: false });
  expect(parseReleaseOptions(['--version', '1.0.0-rc.1', '--registry', 'localhost:5001/ops', '--out', 'out', '--push', '--sign-key', 'keys/cosign.key'], '/repo'))
    .toEqual({ version: '1.0.0-rc.1', registry: 'localhost:5001/ops', outDir: '/repo/out', push: true, signKey: '/repo/keys/cosign.key' });
});

test('a bad version or registry is refused with what to write instead', () => {
  expect(() => parseReleaseOptions([], '/repo')).toThrow('--version is required (for example --version 0.2.0)');
  expect(() => parseReleaseOptions(['--version', 'v0.2.0'], '/repo')).toThrow('--version must be a semantic version such as 0.2.0 or 1.0.0-rc.1 (no leading v), not "v0.2.0"');
  expect(() => parseReleaseOptions(['--version', '0.2'], '/repo')).toThrow('not "0.2"');
  expect(() => parseReleaseOptions(['--version', '0.2.0+abc'], '/repo')).toThrow('image tags do not allow "+"');
  expect(() => parseReleaseOptions(['--version', '0.2.0', '--registry', 'GHCR.io/Acme'], '/repo')).toThrow('--registry must be a registry host');
  expect(() => parseReleaseOptions(['--version', '0.2.0', '--registry', 'ghcr.io/acme/'], '/repo')).toThrow('--registry must be a registry host');
  expect(() => parseReleaseOptions(['--version', '0.2.0', '--sign-key', 'cosign.key'], '/repo')).toThrow('--sign-key signs what --push pushed: add --push');
});

test('--digests pins images pushed elsewhere, instead of --push', () => {
  expect(parseReleaseOptions(['--version', '0.2.0', '--registry', 'ghcr.io/acme', '--digests', 'digests.json'], '/repo'))
    .toEqual({ version: '0.2.0', registry: 'ghcr.io/acme', outDir: '/repo/dist/release-0.2.0', push: false, digestsFile: '/repo/digests.json' });
  expect(() => parseReleaseOptions(['--version', '0.2.0', '--push', '--digests', 'digests.json'], '/repo')).toThrow('--digests pins images pushed elsewhere and --push pushes them itself: use one or the other');
  expect(() => parseReleaseOptions(['--version', '0.2.0', '--digests', 'digests.json', '--sign-key', 'cosign.key'], '/repo')).toThrow('add --push instead of --digests');
});

describe('the digests file', () => {
  const images = ['postgresql-operator', 'maintpage-operator'];
  const digest = (hex: string): string => `sha256:${hex.repeat(64)}`;

  test('gives each image of the release its digest', () => {
    expect(parseImageDigests(JSON.stringify({ 'maintpage-operator': digest('a'), 'postgresql-operator': digest('b') }), images, 'd.json'))
      .toEqual({ 'postgresql-operator': digest('b'), 'maintpage-operator': digest('a') });
  });

  test('is refused, with what to write, when it is not an object of every image and nothing else', () => {
    expect(() => parseImageDigests('{"postgresql-operator": ', images, 'd.json')).toThrow(/^--digests d.json is not JSON \(.*\): write \{"postgresql-operator": "sha256:…", "maintpage-operator": "sha256:…"\}$/);
    expect(() => parseImageDigests('["sha256:…"]', images, 'd.json')).toThrow('--digests d.json must be a JSON object of image name -> digest');
    expect(() => parseImageDigests('null', images, 'd.json')).toThrow('--digests d.json must be a JSON object of image name -> digest');
    expect(() => parseImageDigests(JSON.stringify({ 'postgresql-operator': digest('b') }), images, 'd.json'))
      .toThrow('--digests d.json has no digest for maintpage-operator: the release pins every image (postgresql-operator, maintpage-operator)');
    expect(() => parseImageDigests(JSON.stringify({ 'postgresql-operator': digest('b'), 'maintpage-operator': digest('a'), 'pg-operator': digest('c') }), images, 'd.json'))
      .toThrow('--digests d.json names pg-operator, which the release does not ship: its images are postgresql-operator, maintpage-operator');
    expect(() => parseImageDigests(JSON.stringify({ 'postgresql-operator': digest('b'), constructor: digest('c') }), images, 'd.json')).toThrow('names constructor, which the release does not ship');
  });

  test('is refused when a digest is not sha256 and 64 lower-case hex digits', () => {
    for (const bad of ['sha256:ABC', `sha512:${'a'.repeat(64)}`, digest('A'), `${digest('a')}\n`, 'a'.repeat(64), 42]) {
      expect(() => parseImageDigests(JSON.stringify({ 'postgresql-operator': digest('b'), 'maintpage-operator': bad }), images, 'd.json'))
        .toThrow(`--digests d.json: maintpage-operator's digest must be "sha256:" and 64 lower-case hex digits, not ${JSON.stringify(bad)}`);
    }
  });

  test('that cannot be read says which file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'release-digests-'));
    try {
      await expect(readImageDigests(join(dir, 'missing.json'), images)).rejects.toThrow(`--digests ${join(dir, 'missing.json')} cannot be read: ENOENT`);
      await writeFile(join(dir, 'digests.json'), JSON.stringify({ 'postgresql-operator': digest('b'), 'maintpage-operator': digest('a') }));
      expect(await readImageDigests(join(dir, 'digests.json'), images)).toEqual({ 'postgresql-operator': digest('b'), 'maintpage-operator': digest('a') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
