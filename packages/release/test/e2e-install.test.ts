// The release's two ways in as the e2e specs drive them on kind (testkit's operatorInstaller, E2E_INSTALL=manifest or
// chart), on a real API server: install, install again over it, the objects it lists for the least-privilege checks,
// and removal as that way's user removes it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ControlPlane, operatorInstaller, REPOSITORY_ROOT, runCommand, waitFor, type CommandResult, type OperatorInstaller } from '@k8s-operators/testkit';
import { RELEASE, useRelease } from './release-fixture.ts';

const OPERATOR = 'nutanix-ahvvm-operator';
const NAMESPACE = `${OPERATOR}-system`;
const CRD = 'ahvvms.nutanix.com';
/** The roles the least-privilege checks read (testkit's operatorPermissions). */
const OPERATOR_ROLES = [`${OPERATOR}-manager-role`, `${OPERATOR}-leader-election-role`];
const release = useRelease('release-e2e-install-', { helm: true });
let controlPlane: ControlPlane | undefined;
const kubectl = (args: readonly string[], input?: string): Promise<CommandResult> => runCommand(release.kubectl, args, { KUBECONFIG: controlPlane?.adminKubeconfig ?? '' }, input);
const kubectlOk = async (args: readonly string[], options?: { input?: string }): Promise<string> => {
  const result = await kubectl(args, options?.input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
};
const installerFor = (way: string): Promise<OperatorInstaller> =>
  // The installer's kubectl is the provisioned one here, as kind/e2e.sh puts the cluster's kubectl first on PATH there.
  operatorInstaller({ E2E_INSTALL: way, E2E_RELEASE_DIR: release.dir }, kubectlOk, controlPlane?.adminKubeconfig ?? '', REPOSITORY_ROOT);

beforeAll(async () => {
  controlPlane = await ControlPlane.start({ dir: await mkdtemp(join(tmpdir(), 'release-e2e-install-cp-')) });
});
afterAll(async () => {
  await controlPlane?.stop();
});

const managerImage = async (): Promise<string> =>
  kubectlOk(['-n', NAMESPACE, 'get', 'deployment', `${OPERATOR}-controller-manager`, '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
const roleNames = (objects: string): string[] => parseAllDocuments(objects)
  .map((document) => document.toJSON() as { kind?: string; metadata?: { name?: string } } | null)
  .filter((object) => object?.kind === 'ClusterRole' || object?.kind === 'Role').map((object) => object?.metadata?.name ?? '').sort();
/** The API server's view of an object: gone, being deleted, or there. */
const lifeOf = async (args: readonly string[]): Promise<'gone' | 'deleting' | 'there'> => {
  const got = await kubectl([...args, '-o', 'jsonpath={.metadata.deletionTimestamp}']);
  if (got.code !== 0) {
    expect(got.stderr).toContain('NotFound');
    return 'gone';
  }
  return got.stdout === '' ? 'there' : 'deleting';
};

describe('the ways in of a release, as the e2e specs install with them', () => {
  test('install.yaml: applied server-side, again over itself; listed as written; removed with its CRDs and namespace', async () => {
    const installer = await installerFor('manifest');
    await installer.install(OPERATOR);
    await installer.install(OPERATOR);
    expect(await managerImage()).toBe(`${RELEASE.registry}/${OPERATOR}:${RELEASE.version}`);
    // Server-side: the fields are kubectl's as an Apply, not a client-side apply's annotation.
    const managers = await kubectlOk(['-n', NAMESPACE, 'get', 'deployment', `${OPERATOR}-controller-manager`, '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].operation}']);
    expect(managers.split(' ')).toContain('Apply');
    expect(roleNames(await installer.installedObjects(OPERATOR))).toEqual(expect.arrayContaining(OPERATOR_ROLES));

    await installer.uninstall(OPERATOR);
    expect(await lifeOf(['get', 'crd', CRD])).not.toBe('there');
    expect(await lifeOf(['get', 'namespace', NAMESPACE])).not.toBe('there');
  });

  test('the chart: into a namespace enforcing restricted Pod Security, upgraded in place; listed as Helm installed it; helm uninstall keeps the CRDs and the namespace', async () => {
    // The namespace the manifest's removal deleted (the control plane's namespace controller finishes it in seconds):
    // the chart's install makes it again.
    await waitFor(async () => (await lifeOf(['get', 'namespace', NAMESPACE])) === 'gone', { what: `namespace ${NAMESPACE} to be deleted`, timeoutMs: 120_000 });
    const installer = await installerFor('chart');
    await installer.install(OPERATOR);
    await installer.install(OPERATOR);
    expect(await managerImage()).toBe(`${RELEASE.registry}/${OPERATOR}:${RELEASE.version}`);
    const labels = JSON.parse(await kubectlOk(['get', 'namespace', NAMESPACE, '-o', 'jsonpath={.metadata.labels}'])) as Record<string, string>;
    expect(labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const history = await release.helmRun(['history', OPERATOR, '--namespace', NAMESPACE, '-o', 'json'], { KUBECONFIG: controlPlane?.adminKubeconfig ?? '' });
    expect((JSON.parse(history.stdout) as { revision: number; status: string }[]).map((h) => [h.revision, h.status])).toEqual([[1, 'superseded'], [2, 'deployed']]);
    expect(roleNames(await installer.installedObjects(OPERATOR))).toEqual(expect.arrayContaining(OPERATOR_ROLES));

    await installer.uninstall(OPERATOR);
    expect(await lifeOf(['-n', NAMESPACE, 'get', 'deployment', `${OPERATOR}-controller-manager`])).not.toBe('there');
    expect(await lifeOf(['get', 'crd', CRD])).toBe('there');
    expect(await lifeOf(['get', 'namespace', NAMESPACE])).toBe('there');
  });
});
