import { expect, test } from 'vitest';
import { parseReleaseOptions } from './release-options.ts';

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
