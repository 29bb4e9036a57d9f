import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { REPOSITORY_ROOT } from './e2e.ts';

/**
 * Every PrometheusRule that deploy/<operator>/prometheus/rules.yaml ships, for each of `operators`, written into `dir`
 * as a plain rule file (its spec, unchanged: `groups:`) that a Prometheus started by tests reads through `rule_files`,
 * as prometheus-operator hands a PrometheusRule's spec to Prometheus. Returns the files' paths.
 */
export async function shippedRuleFiles(operators: readonly string[], dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const operator of operators) {
    const text = await readFile(join(REPOSITORY_ROOT, 'deploy', operator, 'prometheus', 'rules.yaml'), 'utf8');
    for (const doc of parseAllDocuments(text).map((d) => d.toJSON() as { kind?: string; spec?: unknown } | null)) {
      if (doc?.kind !== 'PrometheusRule') continue;
      const file = join(dir, `${operator}-${String(files.length)}.rules.yaml`);
      await writeFile(file, stringify(doc.spec, { lineWidth: 0 }));
      files.push(file);
    }
  }
  return files;
}
