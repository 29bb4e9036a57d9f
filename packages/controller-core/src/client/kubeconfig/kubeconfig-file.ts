import { readFile } from 'node:fs/promises';

export type EntryKind = 'cluster' | 'user' | 'context';

/** One named entry of a kubeconfig's `clusters`, `users` or `contexts` list. */
export interface KubeconfigEntry {
  readonly kind: EntryKind;
  readonly name: string;
  /** Absolute path of the file that defines the entry: relative paths in it resolve against that file's directory. */
  readonly file: string;
  /** The entry's `cluster`, `user` or `context` mapping, not yet validated. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** One parsed kubeconfig file. */
export interface KubeconfigFile {
  readonly path: string;
  readonly currentContext: string | undefined;
  readonly clusters: ReadonlyMap<string, KubeconfigEntry>;
  readonly users: ReadonlyMap<string, KubeconfigEntry>;
  readonly contexts: ReadonlyMap<string, KubeconfigEntry>;
}

const LISTS = { cluster: 'clusters', user: 'users', context: 'contexts' } as const;

/**
 * Reads and parses one kubeconfig (an absolute path); undefined when the file does not exist, which the caller may
 * tolerate (a KUBECONFIG list) or not (an explicit path). An empty file is an empty kubeconfig, as in client-go.
 */
export async function readKubeconfigFile(path: string): Promise<KubeconfigFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read kubeconfig ${path}: ${(error as Error).message}`, { cause: error });
  }
  const document = await parseYaml(path, text);
  if (document !== null && !isMapping(document)) {
    throw new Error(`kubeconfig ${path} is not a kubeconfig: its top level must be a mapping with clusters, users and contexts`);
  }
  const root = document ?? {};
  const currentContext = root['current-context'];
  if (currentContext !== undefined && currentContext !== null && typeof currentContext !== 'string') {
    throw new Error(`kubeconfig ${path}: current-context must be a string`);
  }
  return {
    path,
    currentContext: currentContext === null || currentContext === '' ? undefined : currentContext,
    clusters: entries(path, root, 'cluster'),
    users: entries(path, root, 'user'),
    contexts: entries(path, root, 'context'),
  };
}

/**
 * The `yaml` package is loaded only when a kubeconfig file is read: an operator running in its cluster never needs it.
 * Its error messages quote the offending source lines, which may hold a token, so only the first sentence and the
 * position are kept (and the error is not chained as a cause, which Node prints).
 */
async function parseYaml(path: string, text: string): Promise<unknown> {
  const { parseDocument } = await import('yaml');
  const document = parseDocument(text, { logLevel: 'error' });
  const error = document.errors[0];
  if (error !== undefined) {
    const position = error.linePos?.[0];
    const where = position === undefined ? '' : ` at line ${position.line}, column ${position.col}`;
    const reason = error.message.split(' at line ')[0] ?? error.code;
    throw new Error(`kubeconfig ${path} is not valid YAML${where}: ${reason}`);
  }
  return document.toJS() as unknown;
}

function entries(path: string, root: Record<string, unknown>, kind: EntryKind): Map<string, KubeconfigEntry> {
  const list = LISTS[kind];
  const items = root[list];
  const byName = new Map<string, KubeconfigEntry>();
  if (items === undefined || items === null) return byName;
  if (!Array.isArray(items)) throw new Error(`kubeconfig ${path}: ${list} must be a list`);
  items.forEach((item: unknown, index) => {
    if (!isMapping(item)) throw new Error(`kubeconfig ${path}: ${list}[${index}] must be a mapping with name and ${kind}`);
    const name = item.name;
    if (typeof name !== 'string' || name === '') throw new Error(`kubeconfig ${path}: ${list}[${index}] has no name`);
    const fields = item[kind] ?? {};
    if (!isMapping(fields)) throw new Error(`kubeconfig ${path}: ${kind} "${name}": ${kind} must be a mapping`);
    // client-go refuses a list with a name twice rather than picking one.
    if (byName.has(name)) throw new Error(`kubeconfig ${path}: ${list} has two entries named "${name}"`);
    byName.set(name, { kind, name, file: path, fields });
  });
  return byName;
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
