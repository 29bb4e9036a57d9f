// One Helm template per object of the release's kustomize build. Each is that object with the values put in where
// they belong and nothing else changed, so that with the default values the chart renders exactly the build (a test
// holds it to that). The Namespace is not a template: Helm installs into a namespace that exists or that
// `--create-namespace` makes, and a chart that also made it would fail there.
import { mapStrings, type K8sObject } from '../k8s-object.ts';
import type { ReleasedOperator } from '../released-operators.ts';
import { escapeTemplateText, TemplateMarkers, type BlockLines } from './template-markers.ts';

export type ImageValuesKey = 'image' | 'pageServerImage';
export interface ChartImage { valuesKey: ImageValuesKey; reference: string }

export interface TemplateContext {
  operator: ReleasedOperator;
  /** The namespace deploy/ installs into; the chart's objects go to the release's namespace instead. */
  namespace: string;
  images: readonly ChartImage[];
}

export type ChartSection = 'install' | 'monitoring' | 'networkPolicy';
export interface ChartTemplate { path: string; text: string }

/** The name of the Secret the nutanix operator reads its Prism Central connection from, as deploy/ names it. */
export const PRISM_SECRET = 'prism-central';

/** Where a Deployment's Pods may run: values for the operator's Pods and, apart, the backup store's. */
export const NODE_SELECTION = ['nodeSelector', 'tolerations', 'affinity'] as const;

// A map from the values added to a mapping that has entries of its own.
const entries = (valuesPath: string): BlockLines => (indent) => [
  `{{- with ${valuesPath} }}`,
  `{{- toYaml . | nindent ${String(indent)} }}`,
  '{{- end }}',
];
// `key:` with a map or list from the values, only when it is not empty.
const optional = (key: string, valuesPath: string): BlockLines => (indent) => [
  `{{- with ${valuesPath} }}`,
  `${key}:`,
  `  {{- toYaml . | nindent ${String(indent + 2)} }}`,
  '{{- end }}',
];
// `key:` with whatever the values say, always.
const always = (key: string, valuesPath: string): BlockLines => (indent) => [
  `${key}:`,
  `  {{- toYaml ${valuesPath} | nindent ${String(indent + 2)} }}`,
];
// The annotations of what `helm uninstall` must leave (the CRDs): the common ones, and Helm's keep policy while the
// value `keepValue` is true.
const KEEP = 'helm.sh/resource-policy: keep';
const keptAnnotations = (keepValue: string): BlockLines => (indent) => [
  '{{- $annotations := merge (dict) (.Values.commonAnnotations | default dict) }}',
  `{{- if ${keepValue} }}{{ $_ := set $annotations "helm.sh/resource-policy" "keep" }}{{ end }}`,
  '{{- with $annotations }}',
  'annotations:',
  `  {{- toYaml . | nindent ${String(indent + 2)} }}`,
  '{{- end }}',
];

const imageTemplate = (key: ImageValuesKey): string =>
  `{{ .Values.${key}.repository }}:{{ .Values.${key}.tag }}{{ with .Values.${key}.digest }}@{{ . }}{{ end }}`;

type Mapping = Record<string, unknown>;
const asMapping = (value: unknown): Mapping => value as Mapping;

function conditionOf(object: K8sObject, section: ChartSection): string | undefined {
  if (object.kind === 'CustomResourceDefinition') return '.Values.crds.install';
  if (section === 'networkPolicy') return '.Values.networkPolicy.enabled';
  if (object.kind === 'ServiceMonitor') return '.Values.metrics.serviceMonitor.enabled';
  if (object.kind === 'PrometheusRule') return '.Values.metrics.prometheusRule.enabled';
  return undefined;
}

function templatePath(object: K8sObject, context: TemplateContext): string {
  if (object.kind === 'CustomResourceDefinition') return `templates/crd-${object.metadata.name}.yaml`;
  const name = object.metadata.name.startsWith(`${context.operator}-`) ? object.metadata.name.slice(context.operator.length + 1) : object.metadata.name;
  return `templates/${object.kind.toLowerCase()}-${name}.yaml`;
}

/** Labels and annotations from the values, on the object's metadata. */
function addMetadataValues(object: K8sObject, markers: TemplateMarkers): void {
  const metadata = object.metadata as Mapping;
  addEntries(metadata, 'labels', ['.Values.commonLabels'], markers);
  // The CRDs (and so every object of their kinds) outlive `helm uninstall`. The backup volume is not the chart's: the
  // operator makes its claim (so no uninstall deletes it), from the arguments setVolumeArgs puts the values in.
  const keepValue = object.kind === 'CustomResourceDefinition' ? '.Values.crds.keep' : undefined;
  if (keepValue === undefined) {
    addEntries(metadata, 'annotations', ['.Values.commonAnnotations'], markers);
  } else if (metadata.annotations === undefined) {
    metadata[markers.block(keptAnnotations(keepValue))] = null;
  } else {
    addEntries(metadata, 'annotations', ['.Values.commonAnnotations'], markers);
    asMapping(metadata.annotations)[markers.block(() => [`{{- if ${keepValue} }}`, KEEP, '{{- end }}'])] = null;
  }
}

/** The maps at `valuesPaths` added to `parent[key]`: into its entries, or as the whole key when it has none. */
function addEntries(parent: Mapping, key: string, valuesPaths: readonly string[], markers: TemplateMarkers): void {
  const existing = parent[key];
  if (existing !== undefined) {
    for (const path of valuesPaths) asMapping(existing)[markers.block(entries(path))] = null;
    return;
  }
  const [only, ...more] = valuesPaths;
  if (only === undefined || more.length > 0) throw new Error(`${key}: one map of values can stand for a missing ${key}, not ${String(valuesPaths.length)}`);
  parent[markers.block(optional(key, only))] = null;
}

/** Pod labels and annotations, node selection, and for the two Deployments deploy/ sizes, replicas and resources. */
function addDeploymentValues(deployment: K8sObject, context: TemplateContext, markers: TemplateMarkers): void {
  const spec = asMapping(deployment.spec);
  const template = asMapping(spec.template);
  const podMetadata = asMapping(template.metadata);
  addEntries(podMetadata, 'labels', ['.Values.commonLabels', '.Values.podLabels'], markers);
  addEntries(podMetadata, 'annotations', ['.Values.podAnnotations'], markers);
  const deploySpec = asMapping(template.spec);
  // deploy/'s node selection leaves the spec; the values (whose defaults it is) put it back.
  const podSpec = Object.fromEntries(Object.entries(deploySpec).filter(([key]) => !(NODE_SELECTION as readonly string[]).includes(key)));
  template.spec = podSpec;
  const containers = podSpec.containers as Mapping[];
  const values = deployment.metadata.name === `${context.operator}-controller-manager` ? '.Values'
    : deployment.metadata.name === `${context.operator}-backup-store` ? '.Values.backupStore' : undefined;
  if (values === undefined) throw new Error(`deploy/ has a Deployment the chart has no values for: ${deployment.metadata.name}`);
  // Node selection deploy/ sets is the value's default (so it stays unless changed); where it sets none, none is added.
  for (const key of NODE_SELECTION) {
    podSpec[markers.block((deploySpec[key] === undefined ? optional : always)(key, `${values}.${key}`))] = null;
  }
  if (values === '.Values') spec.replicas = markers.scalar('{{ .Values.replicas }}');
  if (values === '.Values' && context.operator === 'postgresql-operator') setVolumeArgs(containers, deployment, markers);
  setResources(containers, values === '.Values' ? 'manager' : 'backup-store', `${values}.resources`, deployment, markers);
}

function setResources(containers: Mapping[], name: string, valuesPath: string, deployment: K8sObject, markers: TemplateMarkers): void {
  const container = containers.find((c) => c.name === name);
  if (container === undefined) throw new Error(`${deployment.metadata.name} has no container ${name}`);
  delete container.resources;
  container[markers.block(always('resources', valuesPath))] = null;
}

// The operator's arguments that size the backup volume's claim, which it makes (the chart lists no claim).
const VOLUME_ARGS = { '--backup-volume-size=': '.Values.backupStore.volume.size', '--backup-volume-storage-class=': '.Values.backupStore.volume.storageClassName' } as const;

function setVolumeArgs(containers: Mapping[], deployment: K8sObject, markers: TemplateMarkers): void {
  const manager = containers.find((c) => c.name === 'manager');
  const args = manager?.args as string[] | undefined;
  for (const [flag, valuesPath] of Object.entries(VOLUME_ARGS)) {
    const index = args?.findIndex((arg) => arg.startsWith(flag)) ?? -1;
    if (args === undefined || index < 0) throw new Error(`${deployment.metadata.name}'s manager has no ${flag} argument; the chart's backupStore.volume values go there`);
    args[index] = markers.scalar(`{{ printf "${flag}%v" ${valuesPath} | quote }}`);
  }
}

export function chartTemplate(source: K8sObject, section: ChartSection, context: TemplateContext): ChartTemplate | undefined {
  if (source.kind === 'Namespace') return undefined;
  const markers = new TemplateMarkers();
  const releaseNamespace = markers.scalar('{{ .Release.Namespace }}');
  const imageMarkers = context.images.map((image) => [image.reference, markers.scalar(imageTemplate(image.valuesKey))] as const);
  const prismSecret = context.operator === 'nutanix-ahvvm-operator' ? markers.scalar('{{ .Values.prism.secretName }}') : undefined;
  const object = mapStrings(source, (text) => {
    if (prismSecret !== undefined && text === PRISM_SECRET) return prismSecret;
    const escaped = escapeTemplateText(text).replaceAll(context.namespace, releaseNamespace);
    return imageMarkers.reduce((out, [reference, marker]) => out.replaceAll(reference, marker), escaped);
  });
  addMetadataValues(object, markers);
  if (object.kind === 'Deployment') addDeploymentValues(object, context, markers);
  const body = markers.render(object).trimEnd();
  const condition = conditionOf(source, section);
  const text = condition === undefined ? `${body}\n` : `{{- if ${condition} }}\n${body}\n{{- end }}\n`;
  return { path: templatePath(source, context), text };
}
