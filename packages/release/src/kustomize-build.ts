// `kubectl kustomize <dir>` read into objects: deploy/ is the one source every way of installing is generated from.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { isK8sObject, type K8sObject } from './k8s-object.ts';

const run = promisify(execFile);

export async function kustomizeBuild(kubectl: string, dir: string): Promise<K8sObject[]> {
  const { stdout } = await run(kubectl, ['kustomize', dir], { maxBuffer: 64 * 1024 * 1024 }).catch((error: unknown) => {
    throw new Error(`kubectl kustomize ${dir} failed: ${(error as { stderr?: string }).stderr?.trim() ?? (error as Error).message}`, { cause: error });
  });
  return parseAllDocuments(stdout).map((document, index) => {
    const object: unknown = document.toJSON();
    if (!isK8sObject(object)) throw new Error(`kubectl kustomize ${dir}: document ${String(index + 1)} is not a Kubernetes object`);
    return object;
  });
}
