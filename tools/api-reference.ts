// npm run docs: writes docs/api-reference.md, a reference of every field of every custom resource, from the CRDs
// under deploy/*/crd (which are generated from the TypeScript schemas). `--check` fails when the file is stale.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';

interface Schema {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  'x-kubernetes-validations'?: { rule: string; message?: string }[];
}
interface Crd {
  spec: {
    group: string;
    names: { kind: string; plural: string; shortNames?: string[] };
    scope: string;
    versions: { name: string; storage: boolean; schema: { openAPIV3Schema: Schema } }[];
  };
}

const repo = join(import.meta.dirname, '..');
const target = join(repo, 'docs', 'api-reference.md');

function constraints(schema: Schema): string {
  const parts: string[] = [];
  if (schema.default !== undefined) parts.push(`default \`${JSON.stringify(schema.default)}\``);
  if (schema.enum) parts.push(`one of ${schema.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (schema.minimum !== undefined || schema.maximum !== undefined) parts.push(`${schema.minimum ?? '…'}–${schema.maximum ?? '…'}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined) parts.push(`length ${schema.minLength ?? 0}–${schema.maxLength ?? '…'}`);
  if (schema.format) parts.push(`format ${schema.format}`);
  for (const v of schema['x-kubernetes-validations'] ?? []) parts.push(v.message ?? `rule \`${v.rule}\``);
  return parts.join('; ');
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');

function rows(schema: Schema, path: string, required: boolean, out: string[]): void {
  const type = schema.type === 'array' ? `[]${schema.items?.type ?? 'object'}` : (schema.type ?? 'object');
  if (path) out.push(`| \`${path}\` | ${type} | ${required ? 'yes' : ''} | ${cell(schema.description ?? '')} | ${cell(constraints(schema))} |`);
  const children = schema.type === 'array' ? schema.items : schema;
  // Conditions have the standard metav1.Condition shape; one line says so.
  if (path.endsWith('.conditions')) return;
  for (const [name, child] of Object.entries(children?.properties ?? {})) {
    rows(child, `${path}${schema.type === 'array' ? '[]' : ''}${path ? '.' : ''}${name}`, children?.required?.includes(name) ?? false, out);
  }
}

export async function renderApiReference(): Promise<string> {
  const lines = ['# API reference', '', 'Every field of every custom resource, generated from the CRDs under `deploy/*/crd` (which are generated from the', 'operators\' TypeScript schemas) by `npm run docs`. `conditions` are standard `metav1.Condition` lists (`type`, `status`,', '`reason`, `message`, `lastTransitionTime`, `observedGeneration`).', ''];
  for (const operator of (await readdir(join(repo, 'deploy'))).sort()) {
    const dir = join(repo, 'deploy', operator, 'crd');
    const files = (await readdir(dir).catch((): string[] => [])).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort();
    for (const file of files) {
      const crd = parse(await readFile(join(dir, file), 'utf8')) as Crd;
      const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
      if (!version) continue;
      const { kind, plural, shortNames } = crd.spec.names;
      lines.push(`## ${kind} (\`${crd.spec.group}/${version.name}\`)`, '');
      lines.push(`${operator}; \`kubectl get ${plural}\`${shortNames?.length ? ` (short: ${shortNames.map((s) => `\`${s}\``).join(', ')})` : ''}; ${crd.spec.scope.toLowerCase()}.`, '');
      lines.push('| field | type | required | description | constraints |', '| --- | --- | --- | --- | --- |');
      const root = version.schema.openAPIV3Schema;
      for (const part of ['spec', 'status'] as const) {
        const schema = root.properties?.[part];
        if (schema) rows(schema, part, root.required?.includes(part) ?? false, lines);
      }
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const rendered = await renderApiReference();
  if (values.check) {
    const committed = await readFile(target, 'utf8').catch(() => '');
    if (committed !== rendered) {
      console.error('docs/api-reference.md is out of date with the CRDs: run npm run docs and commit it');
      process.exit(1);
    }
  } else {
    await writeFile(target, rendered);
    console.log(`wrote ${target}`);
  }
}
