// An operator's Helm chart, generated from the release's kustomize build: Chart.yaml, values.yaml (defaults read from
// the build, each commented), values.schema.json, one template per object, and NOTES.txt.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Document } from 'yaml';
import type { RenderedOperator } from '../install-bundle.ts';
import type { K8sObject } from '../k8s-object.ts';
import type { ReleasedOperator } from '../released-operators.ts';
import { chartTemplate, PRISM_SECRET, type ChartImage, type ChartSection, type ImageValuesKey, type TemplateContext } from './chart-templates.ts';
import { VALUE_DESCRIPTIONS, valuesSchema, type ChartValues, type ImageValues, type NodeSelectionValues, type ResourceValues } from './chart-values.ts';

export interface ChartRelease {
  operator: ReleasedOperator;
  version: string;
  description: string;
  /** Each image's values key, its values, and the reference the build names it by. */
  images: readonly (ChartImage & { values: ImageValues })[];
}

function deployment(objects: readonly K8sObject[], name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
}

/** A Deployment's node selection as deploy/ sets it: the chart's defaults. */
function nodeSelection(objects: readonly K8sObject[], deploymentName: string): NodeSelectionValues {
  const podSpec = (deployment(objects, deploymentName)?.spec as { template: { spec: Partial<NodeSelectionValues> } } | undefined)?.template.spec;
  return { nodeSelector: podSpec?.nodeSelector ?? {}, tolerations: podSpec?.tolerations ?? [], affinity: podSpec?.affinity ?? {} };
}

function containerResources(objects: readonly K8sObject[], deploymentName: string, container: string): ResourceValues {
  const spec = deployment(objects, deploymentName)?.spec as { template: { spec: { containers: { name: string; resources?: ResourceValues }[] } } } | undefined;
  const resources = spec?.template.spec.containers.find((c) => c.name === container)?.resources;
  if (resources === undefined) throw new Error(`deploy/ gives ${deploymentName}'s container ${container} no resources; the chart's defaults come from there`);
  return resources;
}

function managerArgs(objects: readonly K8sObject[], deploymentName: string): string[] {
  const spec = deployment(objects, deploymentName)?.spec as { template: { spec: { containers: { name: string; args?: string[] }[] } } } | undefined;
  return spec?.template.spec.containers.find((c) => c.name === 'manager')?.args ?? [];
}

/** The defaults: whatever the build says, so that the default render is the build. */
export function defaultValues(release: ChartRelease, rendered: RenderedOperator): ChartValues {
  const { operator } = release;
  const manager = `${operator}-controller-manager`;
  const image = (key: ImageValuesKey): ImageValues => {
    const found = release.images.find((i) => i.valuesKey === key);
    if (found === undefined) throw new Error(`${operator} has no ${key}`);
    return found.values;
  };
  const replicas = (deployment(rendered.install, manager)?.spec as { replicas?: number } | undefined)?.replicas ?? 1;
  const values: ChartValues = {
    image: image('image'),
    ...(operator === 'maintpage-operator' ? { pageServerImage: image('pageServerImage') } : {}),
    replicas,
    resources: containerResources(rendered.install, manager, 'manager'),
    ...nodeSelection(rendered.install, manager),
    podLabels: {}, podAnnotations: {}, commonLabels: {}, commonAnnotations: {},
    crds: { install: true, keep: true },
    metrics: { serviceMonitor: { enabled: false }, prometheusRule: { enabled: false } },
    networkPolicy: { enabled: false },
  };
  if (operator === 'nutanix-ahvvm-operator') values.prism = { secretName: PRISM_SECRET };
  if (operator === 'postgresql-operator') {
    const arg = (flag: string): string => {
      const found = managerArgs(rendered.install, manager).find((a) => a.startsWith(`${flag}=`));
      if (found === undefined) throw new Error(`deploy/postgresql-operator's manager has no ${flag} argument; the chart's default comes from there`);
      return found.slice(flag.length + 1);
    };
    values.backupStore = {
      resources: containerResources(rendered.install, `${operator}-backup-store`, 'backup-store'),
      ...nodeSelection(rendered.install, `${operator}-backup-store`),
      volume: { size: arg('--backup-volume-size'), storageClassName: arg('--backup-volume-storage-class') },
    };
  }
  return values;
}

function valuesYaml(release: ChartRelease, values: ChartValues): string {
  const document = new Document(values);
  const pairs = (document.contents as unknown as { items: { key: { value: string; commentBefore?: string; spaceBefore?: boolean } }[] }).items;
  for (const [index, pair] of pairs.entries()) {
    pair.key.commentBefore = ` ${VALUE_DESCRIPTIONS[pair.key.value as keyof ChartValues]}`;
    // A blank line between values; the first follows the document's comment, which the library already spaces.
    pair.key.spaceBefore = index > 0;
  }
  document.commentBefore = ` ${release.operator} ${release.version}. values.schema.json says what each value may be; helm refuses anything else.`;
  return document.toString({ lineWidth: 0 });
}

function notes(release: ChartRelease): string {
  const deploymentName = `${release.operator}-controller-manager`;
  return [
    `${release.operator} {{ .Chart.AppVersion }} is installed in {{ .Release.Namespace }}.`,
    '',
    'Check that it runs:',
    `  kubectl -n {{ .Release.Namespace }} rollout status deployment/${deploymentName}`,
    ...(release.operator === 'nutanix-ahvvm-operator'
      ? ['', 'It reads Prism Central\'s address and credentials from the Secret {{ .Values.prism.secretName }} in {{ .Release.Namespace }}, which you create',
        '(samples/prism-central-secret.yaml in the repository shows every key); after changing it, restart the Deployment.']
      : []),
    '',
    'The namespace should enforce the restricted Pod Security level, as kubectl apply -k deploy/ sets it:',
    '  kubectl label namespace {{ .Release.Namespace }} pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest',
    '',
  ].join('\n');
}

/**
 * The oldest Kubernetes minor of the supported range, the one every e2e spec passed on (the e2e workflow's first
 * matrix entry). The chart's kubeVersion makes Helm refuse an older cluster with a message naming both versions,
 * rather than install what nothing here has run there.
 */
export const OLDEST_SUPPORTED_KUBERNETES_MINOR = '1.34';

/** Writes the chart into `dir` (which becomes the chart's root) and returns the files written. */
export async function writeChart(dir: string, release: ChartRelease, rendered: RenderedOperator): Promise<string[]> {
  const namespace = `${release.operator}-system`;
  const context: TemplateContext = { operator: release.operator, namespace, images: release.images };
  const sections: [ChartSection, K8sObject[]][] = [['install', rendered.install], ['monitoring', rendered.monitoring], ['networkPolicy', rendered.networkPolicy]];
  const files = new Map<string, string>();
  for (const [section, objects] of sections) {
    for (const object of objects) {
      const template = chartTemplate(object, section, context);
      if (template === undefined) continue;
      if (files.has(template.path)) throw new Error(`two objects would both be the chart's ${template.path}`);
      files.set(template.path, template.text);
    }
  }
  files.set('Chart.yaml', new Document({
    apiVersion: 'v2', name: release.operator, description: release.description, type: 'application',
    version: release.version, appVersion: release.version,
    // The -0 lets a provider's pre-release suffix (v1.34.2-eks-…) count as 1.34: Helm's semver otherwise ranks it lower.
    kubeVersion: `>=${OLDEST_SUPPORTED_KUBERNETES_MINOR}.0-0`,
  }).toString({ lineWidth: 0 }));
  files.set('values.yaml', valuesYaml(release, defaultValues(release, rendered)));
  files.set('values.schema.json', `${JSON.stringify(valuesSchema(release.operator), null, 2)}\n`);
  files.set('templates/NOTES.txt', notes(release));
  const written = [];
  for (const [path, text] of files) {
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    written.push(file);
  }
  return written;
}
