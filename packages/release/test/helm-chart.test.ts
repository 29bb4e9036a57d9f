// The generated charts, run through the real helm: they lint, their default render is exactly deploy/'s kustomize
// build (the chart can never drift from deploy/, which stays the one source), every value does what values.yaml says,
// and a wrong value is refused with a message that names it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { OLDEST_SUPPORTED_KUBERNETES_MINOR } from '../src/chart/write-chart.ts';
import type { K8sObject } from '../src/k8s-object.ts';
import { renderOperator } from '../src/release.ts';
import { RELEASED_OPERATORS, type ReleasedOperator } from '../src/released-operators.ts';
import { parseObjects, RELEASE, sortedObjects, useRelease } from './release-fixture.ts';

const release = useRelease('release-chart-', { helm: true });
const chartDir = (operator: ReleasedOperator): string => join(release.dir, operator, 'chart');
const KEEP = 'helm.sh/resource-policy';

async function render(operator: ReleasedOperator, args: readonly string[] = [], namespace = `${operator}-system`): Promise<K8sObject[]> {
  const result = await release.helmRun(['template', operator, chartDir(operator), '--namespace', namespace, ...args]);
  expect(result.stderr, `${operator} ${args.join(' ')}`).toBe('');
  expect(result.code).toBe(0);
  return parseObjects(result.stdout);
}

async function refusal(operator: ReleasedOperator, args: readonly string[]): Promise<string> {
  const result = await release.helmRun(['template', operator, chartDir(operator), '--namespace', `${operator}-system`, ...args]);
  expect(result.code, `${operator} ${args.join(' ')} was accepted`).not.toBe(0);
  return result.stderr;
}

/** The build without its Namespace (Helm installs into the release's namespace) and in one order. */
const withoutNamespace = (objects: readonly K8sObject[]): K8sObject[] => sortedObjects(objects.filter((o) => o.kind !== 'Namespace'));

/** The render with the one addition the chart documents: `helm uninstall` keeps the CRDs. */
function withoutKeepPolicy(objects: readonly K8sObject[]): K8sObject[] {
  return sortedObjects(objects.map((object) => {
    if (object.kind !== 'CustomResourceDefinition') return object;
    const { [KEEP]: keep, ...annotations } = object.metadata.annotations ?? {};
    expect(keep, object.metadata.name).toBe('keep');
    const { annotations: _annotations, ...metadata } = object.metadata;
    return { ...object, metadata: Object.keys(annotations).length === 0 ? metadata : { ...metadata, annotations } };
  }));
}

const deploymentOf = (objects: readonly K8sObject[], name: string): { spec: { replicas?: number; template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown> & { containers: { name: string; image: string; args?: string[]; resources: unknown }[] } } } } => {
  const found = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
  if (found === undefined) throw new Error(`no Deployment ${name}`);
  return found as never;
};

describe.each(RELEASED_OPERATORS)('%s chart', (operator) => {
  const manager = `${operator}-controller-manager`;

  test('helm lint --strict passes', async () => {
    const result = await release.helmRun(['lint', '--strict', chartDir(operator)]);
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  test("the default render is deploy/'s kustomize build, CRDs kept on uninstall", async () => {
    const built = await renderOperator(release.kubectl, operator, RELEASE);
    expect(withoutKeepPolicy(await render(operator))).toEqual(withoutNamespace(built.install));
  });

  test(`a cluster older than Kubernetes ${OLDEST_SUPPORTED_KUBERNETES_MINOR} is refused, naming both versions; ${OLDEST_SUPPORTED_KUBERNETES_MINOR} and a provider's build of it are not`, async () => {
    expect(await refusal(operator, ['--kube-version', '1.33.7'])).toContain(`chart requires kubeVersion: >=${OLDEST_SUPPORTED_KUBERNETES_MINOR}.0-0 which is incompatible with Kubernetes v1.33.7`);
    for (const version of [`${OLDEST_SUPPORTED_KUBERNETES_MINOR}.0`, `${OLDEST_SUPPORTED_KUBERNETES_MINOR}.2-eks-113cf36`]) {
      expect(withoutKeepPolicy(await render(operator, ['--kube-version', version])), version).not.toEqual([]);
    }
  });

  test('with metrics and network policies on, it is the build with both options', async () => {
    const built = await renderOperator(release.kubectl, operator, RELEASE);
    const rendered = await render(operator, ['--set', 'metrics.serviceMonitor.enabled=true,metrics.prometheusRule.enabled=true,networkPolicy.enabled=true']);
    expect(withoutKeepPolicy(rendered)).toEqual(withoutNamespace([...built.install, ...built.monitoring, ...built.networkPolicy]));
    // The alert texts are Prometheus templates, which Helm must leave as they are.
    const rules = JSON.stringify(rendered.filter((o) => o.kind === 'PrometheusRule'));
    if (rules !== '[]') expect(rules).toContain('{{ $labels.');
  });

  test('values change what they say, and only that', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const rendered = await render(operator, [
      '--set', `replicas=3,image.repository=registry.example/ops/${operator},image.tag=9.9.9,image.digest=${digest}`,
      '--set', 'nodeSelector.disk=ssd,tolerations[0].key=dedicated,tolerations[0].operator=Exists,commonLabels.team=platform,commonAnnotations.owner=ops,podLabels.tier=control,podAnnotations.scrape=yes',
      '--set', 'resources.limits.memory=512Mi,crds.keep=false',
    ], 'ops');
    const deployment = deploymentOf(rendered, manager);
    expect(deployment.spec.replicas).toBe(3);
    const container = deployment.spec.template.spec.containers.find((c) => c.name === 'manager');
    expect(container?.image).toBe(`registry.example/ops/${operator}:9.9.9@${digest}`);
    // --set changes one key; the others keep deploy/'s values (Helm merges --set into the defaults).
    expect(container?.resources).toMatchObject({ limits: { memory: '512Mi' }, requests: { memory: expect.stringMatching(/Mi$/) as unknown } });
    expect(deployment.spec.template.spec.nodeSelector).toEqual({ disk: 'ssd' });
    expect(deployment.spec.template.spec.tolerations).toEqual([{ key: 'dedicated', operator: 'Exists' }]);
    expect(deployment.spec.template.metadata.labels).toMatchObject({ 'control-plane': 'controller-manager', 'team': 'platform', 'tier': 'control' });
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ 'kubectl.kubernetes.io/default-container': 'manager', 'scrape': 'yes' });
    for (const object of rendered) {
      expect(object.metadata.labels?.team, `${object.kind} ${object.metadata.name}`).toBe('platform');
      expect(object.metadata.annotations, `${object.kind} ${object.metadata.name}`).toMatchObject({ owner: 'ops' });
      expect(object.metadata.annotations).not.toHaveProperty(KEEP);
      // Everything namespaced is in the release's namespace, and so is every ServiceAccount a binding names.
      if (object.metadata.namespace !== undefined) expect(object.metadata.namespace).toBe('ops');
    }
    expect(JSON.stringify(rendered)).not.toContain(`${operator}-system`);
  });

  test('a wrong value is refused with a message that names it', async () => {
    expect(await refusal(operator, ['--set', 'replicas=two'])).toMatch(/replicas.*(integer|number)/s);
    expect(await refusal(operator, ['--set', 'replica=2'])).toMatch(/replica\b.*not allowed|additional propert.*replica/s);
    expect(await refusal(operator, ['--set', 'image.digest=latest'])).toMatch(/digest/);
    expect(await refusal(operator, ['--set', 'resources.limits.memory=lots'])).toMatch(/memory/);
    expect(await refusal(operator, ['--set', 'metrics.serviceMonitor=true'])).toMatch(/serviceMonitor/);
  });
});

test('maintpage: the page server image is a value of its own', async () => {
  const rendered = await render('maintpage-operator', ['--set', 'pageServerImage.repository=registry.example/page,pageServerImage.tag=2.0.0']);
  const args = deploymentOf(rendered, 'maintpage-operator-controller-manager').spec.template.spec.containers[0]?.args ?? [];
  expect(args).toContain('--page-server-image=registry.example/page:2.0.0');
});

test('postgresql: the backup store and its volume have values of their own', async () => {
  // The chart lists no claim (the operator makes it, so no uninstall deletes it): the volume values are its arguments.
  expect((await render('postgresql-operator')).filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
  const rendered = await render('postgresql-operator', ['--set', 'backupStore.volume.size=50Gi,backupStore.volume.storageClassName=fast,backupStore.resources.limits.memory=1Gi,backupStore.nodeSelector.zone=a']);
  const managerArgs = deploymentOf(rendered, 'postgresql-operator-controller-manager').spec.template.spec.containers[0]?.args ?? [];
  expect(managerArgs).toEqual(expect.arrayContaining(['--backup-volume-size=50Gi', '--backup-volume-storage-class=fast']));
  expect(rendered.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
  const store = deploymentOf(rendered, 'postgresql-operator-backup-store').spec.template.spec;
  expect(store.containers[0]?.resources).toEqual({ limits: { memory: '1Gi' }, requests: { cpu: '50m', memory: '64Mi' } });
  expect(store.nodeSelector).toEqual({ zone: 'a' });
  // The operator's own Pods keep deploy/'s spreading over nodes.
  expect(deploymentOf(rendered, 'postgresql-operator-controller-manager').spec.template.spec.affinity).toHaveProperty('podAntiAffinity');
  expect(await refusal('postgresql-operator', ['--set', 'backupStore.volume.size=big'])).toMatch(/size/);
  expect(await refusal('postgresql-operator', ['--set', 'backupStore.volume.storageClassName=Fast SSD'])).toMatch(/storageClassName/);
  // The value the chart used to have: helm uninstall no longer has a claim to keep.
  expect(await refusal('postgresql-operator', ['--set', 'backupStore.volume.keep=true'])).toMatch(/keep/);
});

test('nutanix: the Prism Central Secret is named by a value', async () => {
  const rendered = await render('nutanix-ahvvm-operator', ['--set', 'prism.secretName=prism-prod']);
  const env = JSON.stringify(deploymentOf(rendered, 'nutanix-ahvvm-operator-controller-manager').spec.template.spec.containers[0]);
  expect(env).toContain('"name":"prism-prod"');
  expect(env).not.toContain('prism-central');
  expect(await refusal('nutanix-ahvvm-operator', ['--set', 'prism.secretName=Prism_Prod'])).toMatch(/secretName/);
});

test('the chart\'s oldest Kubernetes is the oldest minor the e2e workflow runs every spec on', async () => {
  const workflow = await readFile(new URL('../../../.github/workflows/e2e.yml', import.meta.url), 'utf8');
  const minors = [...workflow.matchAll(/^\s*- minor: '(1\.\d+)'$/gm)].map((match) => Number(match[1]?.split('.')[1]));
  expect(minors.length).toBeGreaterThan(0);
  expect(OLDEST_SUPPORTED_KUBERNETES_MINOR).toBe(`1.${String(Math.min(...minors))}`);
});
