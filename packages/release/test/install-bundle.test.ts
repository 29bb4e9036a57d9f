// install.yaml as users apply it, on a real API server: `kubectl apply --server-side` on an empty cluster, then again
// over itself, which is how a release is upgraded in place; `kubectl diff --server-side` finds nothing to change and
// the second apply meets no conflict. Then the NetworkPolicy option over it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ControlPlane, runCommand, type CommandResult } from '@k8s-operators/testkit';
import { RELEASED_OPERATORS } from '../src/released-operators.ts';
import { RELEASE, useRelease } from './release-fixture.ts';

const release = useRelease('release-bundle-', { helm: false });
let controlPlane: ControlPlane | undefined;
const kubectl = (args: readonly string[]): Promise<CommandResult> => runCommand(release.kubectl, args, { KUBECONFIG: controlPlane?.adminKubeconfig ?? '' });

beforeAll(async () => {
  controlPlane = await ControlPlane.start({ dir: await mkdtemp(join(tmpdir(), 'release-bundle-cp-')) });
});
afterAll(async () => {
  await controlPlane?.stop();
});

describe.each(RELEASED_OPERATORS)('%s install.yaml', (operator) => {
  const file = (name: string): string => join(release.dir, operator, name);

  test('applies server-side on an empty cluster, then over itself changing nothing', async () => {
    const first = await kubectl(['apply', '--server-side', '-f', file('install.yaml')]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`namespace/${operator}-system serverside-applied`);
    const deployment = JSON.parse((await kubectl(['-n', `${operator}-system`, 'get', 'deployment', `${operator}-controller-manager`, '-o', 'json'])).stdout) as { spec: { template: { spec: { containers: { image: string }[] } } } };
    expect(deployment.spec.template.spec.containers[0]?.image).toBe(`${RELEASE.registry}/${operator}:${RELEASE.version}`);

    // What a user runs before upgrading in place: the server-side diff of the same release is empty (exit 0; 1 is a
    // difference). Controllers' own writes (a claim's status, say) are not the manifest's fields and do not count.
    const diff = await kubectl(['diff', '--server-side', '-f', file('install.yaml')]);
    expect(diff.stdout).toBe('');
    expect(diff.code).toBe(0);
    const again = await kubectl(['apply', '--server-side', '-f', file('install.yaml')]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
  });

  test('network-policy.yaml applies over the install', async () => {
    const applied = await kubectl(['apply', '--server-side', '-f', file('network-policy.yaml')]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/networkpolicy\.networking\.k8s\.io\/\S+ serverside-applied/);
  });
});
