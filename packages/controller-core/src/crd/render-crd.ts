import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { crdManifest } from './crd-manifest.ts';
import type { CustomResourceDeclaration } from './define-custom-resource.ts';
import { lineDiff } from './line-diff.ts';

/**
 * CRD YAML files under `deploy/<operator>/crd/`, generated from the declarations. Output is deterministic (keys sorted
 * as controller-gen sorts them, no line folding), so the committed file can be compared byte for byte with what the
 * code generates: `crdDiff` in each operator's tests fails when someone changes the schema and forgets to regenerate.
 */

export interface RenderCrdOptions {
  /** The command that regenerates the file, named in its header and in `crdDiff`'s message. Default 'npm run crds'. */
  regenerateCommand?: string;
}

const DEFAULT_REGENERATE_COMMAND = 'npm run crds';

/** controller-gen's file name: `<group>_<plural>.yaml`. */
export function crdFileName(declaration: CustomResourceDeclaration): string {
  return `${declaration.group}_${declaration.plural}.yaml`;
}

export function renderCrdYaml(declaration: CustomResourceDeclaration, options: RenderCrdOptions = {}): string {
  const { regenerateCommand = DEFAULT_REGENERATE_COMMAND } = options;
  const header =
    `# Generated from the ${declaration.kind} API declared in code (controller-core defineCustomResource). DO NOT EDIT.\n` +
    `# Regenerate with: ${regenerateCommand}\n`;
  return `${header}---\n${stringify(crdManifest(declaration), { sortMapEntries: true, lineWidth: 0, indentSeq: false })}`;
}

/** Writes one file per declaration into `directory` (created if missing); returns the paths written. */
export async function writeCrds(
  declarations: readonly CustomResourceDeclaration[],
  directory: string,
  options: RenderCrdOptions = {},
): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  return Promise.all(
    declarations.map(async (declaration) => {
      const path = join(directory, crdFileName(declaration));
      await writeFile(path, renderCrdYaml(declaration, options));
      return path;
    }),
  );
}

/**
 * `undefined` when `fileContents` (the committed YAML) is exactly what the code generates; otherwise a message that
 * names the command to regenerate it and shows how the file differs.
 */
export function crdDiff(
  declaration: CustomResourceDeclaration,
  fileContents: string,
  options: RenderCrdOptions = {},
): string | undefined {
  const expected = renderCrdYaml(declaration, options);
  const actual = fileContents.replace(/\r\n/g, '\n'); // a Windows checkout is not a difference
  if (actual === expected) return undefined;
  const { regenerateCommand = DEFAULT_REGENERATE_COMMAND } = options;
  return (
    `${crdFileName(declaration)} is out of date with the ${declaration.kind} schema in code. ` +
    `Regenerate it with: ${regenerateCommand}\n` +
    `(- committed file, + generated from code)\n${lineDiff(actual, expected)}`
  );
}
