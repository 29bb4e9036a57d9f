// The chart's values: their defaults, read from the release's kustomize build (so the default render is that build),
// and values.schema.json, which Helm checks before it renders: a misspelt key or a wrong type is refused with a
// message that names it, instead of being ignored.
import type { ReleasedOperator } from '../released-operators.ts';

export interface ImageValues { repository: string; tag: string; digest: string }
export interface ResourceValues { requests?: Record<string, string>; limits?: Record<string, string> }

export interface NodeSelectionValues {
  nodeSelector: Record<string, string>;
  tolerations: unknown[];
  affinity: Record<string, unknown>;
}

export interface ChartValues extends NodeSelectionValues {
  image: ImageValues;
  /** The MaintPage operator's page server, which it starts beside each app in maintenance. */
  pageServerImage?: ImageValues;
  replicas: number;
  resources: ResourceValues;
  podLabels: Record<string, string>;
  podAnnotations: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  crds: { install: boolean; keep: boolean };
  metrics: { serviceMonitor: { enabled: boolean }; prometheusRule: { enabled: boolean } };
  networkPolicy: { enabled: boolean };
  prism?: { secretName: string };
  backupStore?: { resources: ResourceValues; volume: { size: string; storageClassName: string } } & NodeSelectionValues;
}

/** What each top-level value is for: the schema's descriptions and values.yaml's comments. */
export const VALUE_DESCRIPTIONS: Readonly<Record<keyof ChartValues, string>> = {
  image: "The operator's image. With a digest, the image is pulled by digest (the tag is then only informative).",
  pageServerImage: 'The maintenance page server the operator starts for each app in maintenance.',
  replicas: 'Operator replicas. One reconciles at a time (a Lease); the others keep warm caches and take over.',
  resources: "The operator container's resources. NODE_OPTIONS' --max-old-space-size is sized for the default memory limit: raise both together.",
  nodeSelector: "The operator Pods' node selector.",
  tolerations: "The operator Pods' tolerations.",
  affinity: "The operator Pods' affinity (deploy/'s, if it sets one, is the default).",
  podLabels: "Labels added to the chart's Pods.",
  podAnnotations: "Annotations added to the chart's Pods.",
  commonLabels: 'Labels added to every object of the chart (and its Pods).',
  commonAnnotations: 'Annotations added to every object of the chart.',
  crds: 'install: the chart installs and upgrades the CRDs. keep: helm uninstall leaves them (and so every object of their kinds) in place.',
  metrics: 'A ServiceMonitor and the alert rules (a PrometheusRule), for clusters with the Prometheus Operator.',
  networkPolicy: 'NetworkPolicies: metrics only from namespaces labelled metrics: enabled (and, for PostgreSQL, the backup store only from the operator and its backup Jobs).',
  prism: 'The Secret (in the release namespace) holding the Prism Central connection: see samples/prism-central-secret.yaml for its keys.',
  backupStore: 'The backup store service, and the volume where backups to the volume go, whose claim the operator makes when it is missing (no uninstall deletes it).',
};

const string = { type: 'string' };
const stringMap = { type: 'object', additionalProperties: string };
const enabled = (description: string): object => ({
  type: 'object', additionalProperties: false, required: ['enabled'], properties: { enabled: { type: 'boolean', description } },
});
// A Kubernetes quantity (resource.Quantity's syntax): 100m, 64Mi, 1.5, 2e3.
const quantity = { type: ['string', 'number'], pattern: '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?[0-9]+)?$' };
const quantities = { type: 'object', additionalProperties: false, properties: { 'cpu': quantity, 'memory': quantity, 'ephemeral-storage': quantity } };
const resources = (description: string): object => ({ type: 'object', additionalProperties: false, description, properties: { requests: quantities, limits: quantities } });
const image = (description: string): object => ({
  type: 'object', additionalProperties: false, required: ['repository', 'tag'], description,
  properties: {
    repository: { type: 'string', minLength: 1, pattern: '^[^\\s@:]+(:[0-9]+)?(/[^\\s@:]+)*$', description: 'registry/name, without a tag' },
    tag: { type: 'string', minLength: 1, pattern: '^[\\w][\\w.-]{0,127}$' },
    digest: { type: 'string', pattern: '^(sha256:[0-9a-f]{64})?$', description: 'sha256:… (empty: pulled by tag)' },
  },
});

const nodeSelection = (descriptions: Record<keyof NodeSelectionValues, string>): Record<keyof NodeSelectionValues, object> => ({
  nodeSelector: { ...stringMap, description: descriptions.nodeSelector },
  tolerations: { type: 'array', items: { type: 'object' }, description: descriptions.tolerations },
  affinity: { type: 'object', description: descriptions.affinity },
});

export function valuesSchema(operator: ReleasedOperator): object {
  const d = VALUE_DESCRIPTIONS;
  const properties: Record<string, object> = {
    image: image(d.image),
    replicas: { type: 'integer', minimum: 1, description: d.replicas },
    resources: resources(d.resources),
    ...nodeSelection({ nodeSelector: d.nodeSelector, tolerations: d.tolerations, affinity: d.affinity }),
    podLabels: { ...stringMap, description: d.podLabels },
    podAnnotations: { ...stringMap, description: d.podAnnotations },
    commonLabels: { ...stringMap, description: d.commonLabels },
    commonAnnotations: { ...stringMap, description: d.commonAnnotations },
    crds: {
      type: 'object', additionalProperties: false, required: ['install', 'keep'], description: d.crds,
      properties: { install: { type: 'boolean' }, keep: { type: 'boolean' } },
    },
    metrics: {
      type: 'object', additionalProperties: false, required: ['serviceMonitor', 'prometheusRule'], description: d.metrics,
      properties: { serviceMonitor: enabled('the ServiceMonitor'), prometheusRule: enabled('the alert rules') },
    },
    networkPolicy: { ...enabled('the NetworkPolicies'), description: d.networkPolicy },
    // What a parent chart hands every subchart; allowed so that this chart can be one.
    global: { type: 'object' },
  };
  if (operator === 'maintpage-operator') properties.pageServerImage = image(d.pageServerImage);
  if (operator === 'nutanix-ahvvm-operator') {
    properties.prism = {
      type: 'object', additionalProperties: false, required: ['secretName'], description: d.prism,
      properties: { secretName: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$' } },
    };
  }
  if (operator === 'postgresql-operator') {
    properties.backupStore = {
      type: 'object', additionalProperties: false, required: ['resources', 'volume', 'nodeSelector', 'tolerations', 'affinity'], description: d.backupStore,
      properties: {
        resources: resources("The backup store container's resources."),
        ...nodeSelection({ nodeSelector: "The backup store Pod's node selector.", tolerations: "The backup store Pod's tolerations.", affinity: "The backup store Pod's affinity." }),
        volume: {
          type: 'object', additionalProperties: false, required: ['size', 'storageClassName'],
          properties: {
            size: { ...quantity, description: 'The size of the claim the operator makes (ReadWriteOnce) when there is none; an existing claim is left as it is.' },
            storageClassName: { type: 'string', pattern: '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$', description: 'The claim\'s StorageClass. Empty: the default StorageClass.' },
          },
        },
      },
    };
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `${operator} chart values`,
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((key) => key !== 'global'),
    properties,
  };
}
