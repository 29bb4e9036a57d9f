// `npm run release -- --version X [--registry R] [--out DIR]`, read into one value.
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
}

export const USAGE = `usage: npm run release -- --version X [--registry R] [--out DIR] [--push [--sign-key cosign.key]]
  --version   the release's version (semver: 1.2.0, 1.3.0-rc.1): the images' tag, the chart's version and appVersion
  --registry  where the images are (default ${IMAGE_REGISTRY})
  --out       where the release goes (default dist/release-<version>): <operator>/install.yaml, monitoring.yaml,
              network-policy.yaml and <operator>/chart/
  --push      build the images for the registry and version, push them, and pin their digests everywhere
  --sign-key  with --push: sign each image (by digest) and each install.yaml with this cosign key (COSIGN_PASSWORD),
              and attach each image's SBOM (SPDX) and SLSA provenance as attestations signed with it`;

// Semantic Versioning 2.0.0's own grammar (semver.org), which Helm requires of a chart's version; no leading "v".
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
// A registry host (with a port) and an optional path, lower case, as image references allow.
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;

export function parseReleaseOptions(argv: readonly string[], cwd = process.cwd()): ReleaseOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      version: { type: 'string' }, registry: { type: 'string', default: IMAGE_REGISTRY }, out: { type: 'string' },
      push: { type: 'boolean', default: false }, 'sign-key': { type: 'string' },
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
  // An image is signed by the digest its push returned; without a push there is none to sign.
  if (signKey !== undefined && !values.push) throw new Error('--sign-key signs what --push pushed: add --push');
  return {
    version, registry: values.registry, outDir: resolve(cwd, values.out ?? `dist/release-${version}`), push: values.push,
    ...(signKey === undefined ? {} : { signKey: resolve(cwd, signKey) }),
  };
}
