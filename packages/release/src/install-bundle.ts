// An operator's plain manifests for a release: install.yaml (CRDs, RBAC, the Deployments, Services; what
// `kubectl apply -k deploy/<operator>` installs), and the two options as files of their own, monitoring.yaml
// (ServiceMonitor and PrometheusRule, for clusters with the Prometheus Operator) and network-policy.yaml.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { K8sObject } from './k8s-object.ts';

export interface RenderedOperator {
  install: K8sObject[];
  monitoring: K8sObject[];
  networkPolicy: K8sObject[];
}

/** Documents in kustomize's order (Namespace and CRDs first), never folded, so a diff of two releases reads line by line. */
export function manifestText(objects: readonly K8sObject[], header: string): string {
  return `${header.split('\n').map((line) => `# ${line}`.trimEnd()).join('\n')}\n${objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n')}`;
}

export async function writeInstallBundle(dir: string, operator: string, version: string, rendered: RenderedOperator): Promise<string[]> {
  const files: [string, K8sObject[], string][] = [
    ['install.yaml', rendered.install, `${operator} ${version}: CRDs, RBAC and the operator in ${operator}-system.\nkubectl apply --server-side -f install.yaml   (again to upgrade: it applies over itself)`],
    ['monitoring.yaml', rendered.monitoring, `${operator} ${version}, optional: a ServiceMonitor and alert rules (needs the Prometheus Operator's CRDs).\nkubectl apply --server-side -f monitoring.yaml   (after install.yaml)`],
    ['network-policy.yaml', rendered.networkPolicy, `${operator} ${version}, optional: metrics only from namespaces labelled metrics: enabled.\nkubectl apply --server-side -f network-policy.yaml   (after install.yaml)`],
  ];
  const written = [];
  for (const [name, objects, header] of files) {
    const path = join(dir, name);
    await writeFile(path, manifestText(objects, header));
    written.push(path);
  }
  return written;
}
