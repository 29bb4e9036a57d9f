import type { KubeconfigEntry, KubeconfigFile } from './kubeconfig-file.ts';

/** Several kubeconfig files seen as one, as client-go merges the files of a KUBECONFIG list. */
export interface MergedKubeconfig {
  /** The files, for messages: one path, or the list. */
  readonly source: string;
  readonly currentContext: { readonly name: string; readonly file: string } | undefined;
  readonly clusters: ReadonlyMap<string, KubeconfigEntry>;
  readonly users: ReadonlyMap<string, KubeconfigEntry>;
  readonly contexts: ReadonlyMap<string, KubeconfigEntry>;
}

/**
 * client-go's merge: for current-context and for every named cluster, user and context the first file that sets it
 * wins, and an entry is taken whole from that file (a later file's fields for the same name are not mixed in).
 */
export function mergeKubeconfigs(files: readonly KubeconfigFile[]): MergedKubeconfig {
  const clusters = new Map<string, KubeconfigEntry>();
  const users = new Map<string, KubeconfigEntry>();
  const contexts = new Map<string, KubeconfigEntry>();
  let currentContext: MergedKubeconfig['currentContext'];
  for (const file of files) {
    if (currentContext === undefined && file.currentContext !== undefined) {
      currentContext = { name: file.currentContext, file: file.path };
    }
    addMissing(clusters, file.clusters);
    addMissing(users, file.users);
    addMissing(contexts, file.contexts);
  }
  const paths = files.map((file) => file.path);
  const source = paths.length === 1 ? `kubeconfig ${paths.join('')}` : `kubeconfig files ${paths.join(', ')}`;
  return { source, currentContext, clusters, users, contexts };
}

function addMissing(merged: Map<string, KubeconfigEntry>, entries: ReadonlyMap<string, KubeconfigEntry>): void {
  for (const [name, entry] of entries) if (!merged.has(name)) merged.set(name, entry);
}
