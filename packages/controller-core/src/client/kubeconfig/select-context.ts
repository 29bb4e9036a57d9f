import type { KubeconfigEntry } from './kubeconfig-file.ts';
import type { MergedKubeconfig } from './merge-kubeconfigs.ts';

/** The context to connect with and the cluster and user it names. */
export interface SelectedContext {
  readonly context: KubeconfigEntry;
  readonly cluster: KubeconfigEntry;
  readonly user: KubeconfigEntry;
}

/** The given context, or current-context; every reference must resolve (client-go's ConfirmUsable). */
export function selectContext(config: MergedKubeconfig, contextName?: string): SelectedContext {
  const name = contextName ?? config.currentContext?.name;
  if (name === undefined) {
    throw new Error(`${config.source} has no current-context: set one (kubectl config use-context NAME) or choose a context`);
  }
  const context = config.contexts.get(name);
  if (context === undefined) {
    const chosen = contextName === undefined ? `current-context "${name}" (set in ${config.currentContext?.file ?? ''})` : `context "${name}"`;
    throw new Error(`${chosen} is not defined in ${config.source}; defined contexts: ${namesOf(config.contexts)}`);
  }
  return {
    context,
    cluster: referenced(config, context, 'cluster', config.clusters),
    user: referenced(config, context, 'user', config.users),
  };
}

function referenced(
  config: MergedKubeconfig,
  context: KubeconfigEntry,
  kind: 'cluster' | 'user',
  entries: ReadonlyMap<string, KubeconfigEntry>,
): KubeconfigEntry {
  const name = context.fields[kind];
  const where = `context "${context.name}" in ${context.file}`;
  if (name === undefined || name === null || name === '') throw new Error(`${where} names no ${kind}`);
  if (typeof name !== 'string') throw new Error(`${where}: ${kind} must be a string`);
  const entry = entries.get(name);
  if (entry === undefined) {
    throw new Error(`${where} names ${kind} "${name}", which ${config.source} does not define; defined ${kind}s: ${namesOf(entries)}`);
  }
  return entry;
}

function namesOf(entries: ReadonlyMap<string, unknown>): string {
  return entries.size === 0 ? '(none)' : [...entries.keys()].join(', ');
}
