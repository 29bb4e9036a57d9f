import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CustomResourceDeclaration } from './define-custom-resource.ts';
import { crdDiff, crdFileName, writeCrds } from './render-crd.ts';

/**
 * An operator's committed CRDs: where they are, which kinds, and the command that regenerates them. Each operator
 * declares one in `src/api/crd-files.ts`; its `generate-crds.ts` script writes them and its test compares them, so the
 * three operators generate and check their CRDs the same way.
 */
export interface CrdFiles {
  /** The directory the files are committed in: `deploy/<operator>/crd/`. */
  directory: string;
  /** Named in each file's header and in a failing comparison, e.g. `npm run crds -w @k8s-operators/<operator>`. */
  regenerateCommand: string;
  resources: readonly CustomResourceDeclaration[];
}

/** Writes one file per resource (controller-gen's names); returns the paths written. */
export function writeCrdFiles(files: CrdFiles): Promise<string[]> {
  return writeCrds(files.resources, files.directory, { regenerateCommand: files.regenerateCommand });
}

/**
 * `undefined` when the committed file of `resource` is exactly what the code generates; otherwise what differs and the
 * command that regenerates it. A missing file differs from everything.
 */
export async function committedCrdDifference(files: CrdFiles, resource: CustomResourceDeclaration): Promise<string | undefined> {
  const committed = await readFile(join(files.directory, crdFileName(resource)), 'utf8').catch(() => '');
  return crdDiff(resource, committed, { regenerateCommand: files.regenerateCommand });
}
