import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** One import between two top-level folders of a package's src/: the first file seen that makes it. */
interface FolderEdge {
  from: string;
  to: string;
  file: string;
}

const IMPORT = /(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)'/g;

async function sourceFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The top-level folder of `path` under `src`, or undefined for a file directly in src/ (main.ts, index.ts). */
function folderOf(src: string, path: string): string | undefined {
  const parts = relative(src, path).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

async function folderEdges(src: string): Promise<FolderEdge[]> {
  const edges = new Map<string, FolderEdge>();
  for (const file of await sourceFiles(src)) {
    const from = folderOf(src, file);
    if (from === undefined) continue;
    for (const [, specifier = ''] of (await readFile(file, 'utf8')).matchAll(IMPORT)) {
      const to = folderOf(src, normalize(join(dirname(file), specifier)));
      if (to === undefined || to === from || to.startsWith('..')) continue;
      const key = `${from}\0${to}`;
      if (!edges.has(key)) edges.set(key, { from, to, file: relative(src, file) });
    }
  }
  return [...edges.values()];
}

/** Groups of folders that reach each other through imports (Tarjan's strongly connected components, size > 1). */
function loops(edges: readonly FolderEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (folder: string): void => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder) ?? 0);
    stack.push(folder);
    for (const to of next.get(folder) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder) ?? 0, low.get(to) ?? 0));
      } else if (stack.includes(to)) {
        low.set(folder, Math.min(low.get(folder) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(folder) !== index.get(folder)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member !== undefined) group.push(member);
    } while (member !== undefined && member !== folder);
    if (group.length > 1) found.push(group.sort());
  };
  for (const folder of next.keys()) if (!index.has(folder)) visit(folder);
  return found;
}

/**
 * The import loops between the top-level folders of a package's `src` (tests left out): each as the imports that close
 * it, e.g. "api/resolved.ts imports desired/ and desired/labels.ts imports api/". Empty when the folders form layers,
 * which is what lets a reader learn a package from the bottom up.
 */
export async function folderImportLoops(src: string): Promise<string[]> {
  const edges = await folderEdges(src);
  return loops(edges).map((group) =>
    `${group.join(', ')} import each other: ` +
    edges
      .filter((edge) => group.includes(edge.from) && group.includes(edge.to))
      .map((edge) => `${edge.file} imports ${edge.to}/`)
      .sort()
      .join(' and '),
  );
}
