import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { KubeApi } from '../kube-api.ts';

/** A Secret or ConfigMap a container needs is missing: the kubelet's CreateContainerConfigError. */
export class ContainerConfigError extends Error {}

interface DataObject {
  data?: Record<string, string>;
}

/** Reads Secrets and ConfigMaps the way the kubelet does for env: Secret values are base64 on the wire. */
export class ObjectSource {
  readonly #api: KubeApi;
  readonly #namespace: string;
  constructor(api: KubeApi, namespace: string) {
    this.#api = api;
    this.#namespace = namespace;
  }

  async data(kind: 'Secret' | 'ConfigMap', name: string, optional: boolean): Promise<Record<string, string> | undefined> {
    const path = `/api/v1/namespaces/${this.#namespace}/${kind === 'Secret' ? 'secrets' : 'configmaps'}/${name}`;
    const object = await this.#api.get<DataObject>(path);
    if (!object) {
      if (optional) return undefined;
      throw new ContainerConfigError(`${kind.toLowerCase()} "${name}" not found`);
    }
    const data = object.data ?? {};
    if (kind === 'ConfigMap') return data;
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  }
}

function fieldValue(pod: V1Pod, fieldPath: string, podIP: string, hostIP: string): string {
  const meta = pod.metadata ?? {};
  const labelMatch = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (labelMatch) {
    const map = labelMatch[1] === 'labels' ? meta.labels : meta.annotations;
    return map?.[labelMatch[2] ?? ''] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.name': return meta.name ?? '';
    case 'metadata.namespace': return meta.namespace ?? '';
    case 'metadata.uid': return meta.uid ?? '';
    case 'spec.nodeName': return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? 'default';
    case 'status.podIP': case 'status.podIPs': return podIP;
    case 'status.hostIP': case 'status.hostIPs': return hostIP;
    default: throw new ContainerConfigError(`fieldRef ${fieldPath} is not supported by the testkit node`);
  }
}

/** Expands $(VAR) references as Kubernetes does; $$(VAR) escapes, unknown references stay as written. */
export function expandReferences(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string | undefined) => {
    if (whole === '$$') return '$';
    return name !== undefined && name in vars ? (vars[name] ?? '') : whole;
  });
}

/** The container's environment: envFrom first, then env in order (later wins), with $(VAR) expansion. */
export async function resolveContainerEnv(pod: V1Pod, container: V1Container, source: ObjectSource, podIP: string, hostIP: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    const ref = from.secretRef ?? from.configMapRef;
    if (!ref?.name) continue;
    const data = await source.data(from.secretRef ? 'Secret' : 'ConfigMap', ref.name, ref.optional ?? false);
    for (const [key, value] of Object.entries(data ?? {})) env[`${prefix}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (!from) {
      env[variable.name] = expandReferences(variable.value ?? '', env);
    } else if (from.secretKeyRef || from.configMapKeyRef) {
      const kind = from.secretKeyRef ? 'Secret' : 'ConfigMap';
      const ref = from.secretKeyRef ?? from.configMapKeyRef ?? { key: '' };
      const data = await source.data(kind, ref.name ?? '', ref.optional ?? false);
      const value = data?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        if (data) throw new ContainerConfigError(`couldn't find key ${ref.key} in ${kind} ${pod.metadata?.namespace ?? ''}/${ref.name ?? ''}`);
        continue;
      }
      env[variable.name] = value;
    } else if (from.fieldRef) {
      env[variable.name] = fieldValue(pod, from.fieldRef.fieldPath, podIP, hostIP);
    } else if (from.resourceFieldRef) {
      // Without cgroups there is no real limit; report the declared one (or 0) like a node with plenty.
      const resources = container.resources?.limits ?? {};
      env[variable.name] = resources[from.resourceFieldRef.resource.replace(/^limits\./, '')] ?? '0';
    }
  }
  return env;
}
