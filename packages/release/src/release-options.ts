// `npm run release -- --version X [--registry R] [--out DIR] [--push | --digests FILE]`, read into one value.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { IMAGE_REGISTRY } from '@k8s-operators/testkit';

export interface ReleaseOptions {
  version: string;
  registry: string;
  outDir: string;
  /** Build and push the images to the registry, and pin their digests in the manifests and the chart. */
  push: boolean;
  /** A cosign private key: sign the pushed images and install.yaml, and attest the images' SBOM and provenance, with it (COSIGN_PASSWORD unlocks it). */
  signKey?: string;
  /** A JSON file of image name -> digest, for images pushed by someone else (the GitHub release workflow): pin those. */
  digestsFile?: string;
}

export const USAGE = `usage: npm run release -- --version X [--registry R] [--out DIR] [--push [--sign-key cosign.key] | --digests FILE]
  --version   the release's version (semver: 1.2.0, 1.3.0-rc.1): the images' tag, the chart's version and appVersion
  --registry  where the images are (default ${IMAGE_REGISTRY})
  --out       where the release goes (default dist/release-<version>): <operator>/install.yaml, monitoring.yaml,
              network-policy.yaml and <operator>/chart/
  --push      build the images for the registry and version, push them, and pin their digests everywhere
  --sign-key  with --push: sign each image (by digest) and each install.yaml with this cosign key (COSIGN_PASSWORD),
              and attach each image's SBOM (SPDX) and SLSA provenance as attestations signed with it
  --digests   instead of --push: pin the digests of images already pushed as <registry>/<image>:<version>, from a JSON
              object of every image's name and digest ({"postgresql-operator": "sha256:…", …})`;

// Semantic Versioning 2.0.0's own grammar (semver.org), which Helm requires of a chart's version; no leading "v".
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
// A registry host (with a port) and an optional path, lower case, as image references allow.
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;

export function parseReleaseOptions(argv: readonly string[], cwd = process.cwd()): ReleaseOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      version: { type: 'string' }, registry: { type: 'string', default: IMAGE_REGISTRY }, out: { type: 'string' },
      push: { type: 'boolean', default: false }, 'sign-key': { type: 'string' }, digests: { type: 'string' },
    },
    strict: true,
  });
  const version = values.version;
  if (version === undefined) throw new Error('--version is required (for example --version 0.2.0)');
  if (!SEMVER.test(version)) throw new Error(`--version must be a semantic version such as 0.2.0 or 1.0.0-rc.1 (no leading v), not ${JSON.stringify(version)}`);
  // A "+build" part is not allowed in an image tag; Helm would turn it into "_" in places, images would not match.
  if (version.includes('+')) throw new Error(`--version cannot carry build metadata (+…): image tags do not allow "+", in ${JSON.stringify(version)}`);
  if (!REGISTRY.test(values.registry)) throw new Error(`--registry must be a registry host with an optional path, such as ghcr.io/acme or localhost:5001/operators, not ${JSON.stringify(values.registry)}`);
  const signKey = values['sign-key'];
  const digestsFile = values.digests;
  // Two sources of the same digests: the ones a push just returned, or the ones a file says were pushed.
  if (digestsFile !== undefined && values.push) throw new Error('--digests pins images pushed elsewhere and --push pushes them itself: use one or the other');
  // An image is signed by the digest its push returned; without a push there is none to sign.
  if (signKey !== undefined && !values.push) {
    throw new Error(`--sign-key signs what --push pushed: add --push${digestsFile === undefined ? '' : ' instead of --digests (images pushed elsewhere are signed where they were pushed, as the release workflow does)'}`);
  }
  return {
    version, registry: values.registry, outDir: resolve(cwd, values.out ?? `dist/release-${version}`), push: values.push,
    ...(signKey === undefined ? {} : { signKey: resolve(cwd, signKey) }),
    ...(digestsFile === undefined ? {} : { digestsFile: resolve(cwd, digestsFile) }),
  };
}

// What a registry names a manifest by; the only algorithm the release's images are pushed with.
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** `--digests`' JSON: a digest for each of `images` and nothing else, or an error naming what to fix in `source`. */
export function parseImageDigests(text: string, images: readonly string[], source: string): Record<string, string> {
  const example = `{${images.map((name) => `"${name}": "sha256:…"`).join(', ')}}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`--digests ${source} is not JSON (${(error as Error).message}): write ${example}`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`--digests ${source} must be a JSON object of image name -> digest: ${example}`);
  const given = parsed as Record<string, unknown>;
  const unknown = Object.keys(given).filter((name) => !images.includes(name));
  if (unknown.length > 0) throw new Error(`--digests ${source} names ${unknown.join(', ')}, which the release does not ship: its images are ${images.join(', ')}`);
  const missing = images.filter((name) => !Object.hasOwn(given, name));
  if (missing.length > 0) throw new Error(`--digests ${source} has no digest for ${missing.join(', ')}: the release pins every image (${images.join(', ')})`);
  const digests: Record<string, string> = {};
  for (const name of images) {
    const digest = given[name];
    if (typeof digest !== 'string' || !DIGEST.test(digest)) throw new Error(`--digests ${source}: ${name}'s digest must be "sha256:" and 64 lower-case hex digits, not ${JSON.stringify(digest)}`);
    digests[name] = digest;
  }
  return digests;
}

/** Reads and checks `--digests`' file (see parseImageDigests). */
export async function readImageDigests(file: string, images: readonly string[]): Promise<Record<string, string>> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new Error(`--digests ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  });
  return parseImageDigests(text, images, file);
}
