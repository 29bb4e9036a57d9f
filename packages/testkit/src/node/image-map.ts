import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

/** How a container image is run on the local node: which runner, with which settings. */
export interface ImageRule {
  /** A glob over the full image reference: `*` matches any run of characters, `?` one character. */
  match: string;
  runner: string;
  with?: Record<string, unknown>;
}

export interface ImageMap {
  images: ImageRule[];
}

/**
 * Built-in rules: the project's own images run their built entry points; `postgres:*` runs a real PostgreSQL;
 * the seed articles' page images serve the pages the articles show. A user's map is searched first.
 */
export const DEFAULT_IMAGE_RULES: readonly ImageRule[] = [
  { match: '*/maintpage-operator:*', runner: 'project-image', with: { entry: 'packages/maintpage-operator/dist/main.js' } },
  { match: '*/maintpage-page-server:*', runner: 'project-image', with: { entry: 'packages/maintpage-operator/dist/page-server/main.js' } },
  { match: '*/postgresql-operator:*', runner: 'project-image', with: { entry: 'packages/postgresql-operator/dist/main.js' } },
  { match: '*/nutanix-ahvvm-operator:*', runner: 'project-image', with: { entry: 'packages/nutanix-ahvvm-operator/dist/main.js' } },
  { match: 'postgres:*', runner: 'postgres' },
  { match: 'docker.io/library/postgres:*', runner: 'postgres' },
  { match: 'busybox:*', runner: 'command' },
  { match: 'docker.io/library/busybox:*', runner: 'command' },
  { match: 'quay.io/daein/prodpage:*', runner: 'http-static', with: { body: 'Production Page !\n', status: 200 } },
  { match: 'quay.io/daein/maintpage:*', runner: 'http-static', with: { body: 'Maintenance Page !\n', status: 200 } },
];

/** Reads a map file (`--image-map` or `TESTKIT_IMAGE_MAP`) and puts its rules in front of the defaults. */
export async function loadImageMap(file: string | undefined): Promise<ImageMap> {
  if (!file) return { images: [...DEFAULT_IMAGE_RULES] };
  const parsed = parse(await readFile(file, 'utf8')) as Partial<ImageMap> | null;
  const rules = parsed?.images;
  if (!Array.isArray(rules)) throw new Error(`image map ${file}: expected a top-level "images:" list`);
  for (const [index, rule] of rules.entries()) {
    if (typeof rule.match !== 'string' || typeof rule.runner !== 'string') {
      throw new Error(`image map ${file}: images[${index}] needs string fields "match" and "runner"`);
    }
  }
  return { images: [...rules, ...DEFAULT_IMAGE_RULES] };
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** Images without a registry host also match rules written with docker.io/library/ (as the runtime would pull). */
export function findImageRule(map: ImageMap, image: string): ImageRule | undefined {
  return map.images.find((rule) => globToRegExp(rule.match).test(image));
}
