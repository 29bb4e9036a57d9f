// A chart's life on a real API server, as a user drives it with helm: install into a new namespace, upgrade with a
// changed value, roll back, and uninstall with objects of the operator's kinds still present, which must survive
// (crds.keep): removing an operator never deletes the databases it managed.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ControlPlane, REPOSITORY_ROOT, runCommand, type CommandResult } from '@k8s-operators/testkit';
import { useRelease } from './release-fixture.ts';

const release = useRelease('release-helm-', { helm: true });
const operator = 'postgresql-operator';
const namespace = 'databases-operator';
let controlPlane: ControlPlane | undefined;
const env = (): NodeJS.ProcessEnv => ({ KUBECONFIG: controlPlane?.adminKubeconfig ?? '' });
const helm = (args: readonly string[]): Promise<CommandResult> => release.helmRun(args, env());
const kubectl = (args: readonly string[], input?: string): Promise<CommandResult> => runCommand(release.kubectl, args, env(), input);

beforeAll(async () => {
  controlPlane = await ControlPlane.start({ dir: await mkdtemp(join(tmpdir(), 'release-helm-cp-')) });
});
afterAll(async () => {
  await controlPlane?.stop();
});

async function managerReplicas(): Promise<number> {
  const got = await kubectl(['-n', namespace, 'get', 'deployment', `${operator}-controller-manager`, '-o', 'jsonpath={.spec.replicas}']);
  expect(got.stderr).toBe('');
  return Number(got.stdout);
}

async function helmOk(args: readonly string[]): Promise<string> {
  const result = await helm(args);
  expect(result.stderr, `helm ${args.join(' ')}`).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

test('install, upgrade with a changed value, roll back, uninstall: the CRDs, the databases and the backup volume\'s claim stay', async () => {
  const chart = join(release.dir, operator, 'chart');
  expect(await helmOk(['install', 'pg', chart, '--namespace', namespace, '--create-namespace'])).toContain('STATUS: deployed');
  expect(await managerReplicas()).toBe(2);

  await helmOk(['upgrade', 'pg', chart, '--namespace', namespace, '--set', 'replicas=3']);
  expect(await managerReplicas()).toBe(3);
  await helmOk(['rollback', 'pg', '1', '--namespace', namespace]);
  expect(await managerReplicas()).toBe(2);
  const history = await helmOk(['history', 'pg', '--namespace', namespace, '-o', 'json']);
  expect((JSON.parse(history) as { revision: number; status: string }[]).map((h) => [h.revision, h.status]))
    .toEqual([[1, 'superseded'], [2, 'superseded'], [3, 'deployed']]);

  // A user's database in another namespace, then the operator removed.
  await kubectl(['create', 'namespace', 'shop']);
  const created = await kubectl(['-n', 'shop', 'apply', '-f', join(REPOSITORY_ROOT, 'deploy', operator, 'samples', 'exp.wheel.jp_v1_postgresql.yaml')]);
  expect(created.stderr).toBe('');
  expect(created.stdout).toContain('postgresql.exp.wheel.jp/orders created');
  const claim = await kubectl(['-n', namespace, 'create', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'PersistentVolumeClaim',
    metadata: { name: `${operator}-backups`, labels: { 'app.kubernetes.io/managed-by': operator, 'exp.wheel.jp/backup-volume-namespace': namespace, 'exp.wheel.jp/backup-volume-claim': `${operator}-backups` } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
  }));
  expect(claim.stderr).toBe('');
  const uninstalled = await helmOk(['uninstall', 'pg', '--namespace', namespace]);
  expect(uninstalled).toContain('release "pg" uninstalled');
  const deployment = await kubectl(['-n', namespace, 'get', 'deployment', `${operator}-controller-manager`]);
  expect(deployment.stderr).toContain('NotFound');
  const crds = await kubectl(['get', 'crd', 'postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp', '-o', 'name']);
  expect(crds.stdout.trim().split('\n')).toEqual(['customresourcedefinition.apiextensions.k8s.io/postgresqls.exp.wheel.jp', 'customresourcedefinition.apiextensions.k8s.io/postgresqlbackups.exp.wheel.jp']);
  const kept = await kubectl(['-n', 'shop', 'get', 'postgresql', 'orders', '-o', 'name']);
  expect(kept.stdout.trim()).toBe('postgresql.exp.wheel.jp/orders');
  // And the backup volume's claim, which the operator makes (no node runs it here: the claim is made as it makes it, with
  // its labels); the chart does not list it, so helm uninstall leaves it.
  const volume = await kubectl(['-n', namespace, 'get', 'persistentvolumeclaim', `${operator}-backups`, '-o', 'jsonpath={.metadata.deletionTimestamp}']);
  expect(volume.stderr).toBe('');
  expect(volume.stdout).toBe('');
});
