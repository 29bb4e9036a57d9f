// The SBOM a release attaches to each pushed image: an SPDX 2.3 document listing the npm packages the image ships,
// read from the image itself (its /app, the Dockerfile's WORKDIR, copied out of a container that is created, never
// started). Why not `npm sbom --omit dev --workspace packages/<operator>`: in this monorepo it drops packages the
// image does ship (pg, prom-client, yaml: another workspace lists them as devDependencies, and npm's selector omits
// a package any dev edge reaches) and lists one it does not (@k8s-operators/testkit).
// What it does not cover: the base image. Node.js itself and the Debian packages under it (distroless' own, or for
// the PostgreSQL operator node:bookworm-slim's and the PostgreSQL client tools) are not listed; the document says so.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docker } from '../push-images.ts';
import { runtimePackages, type RuntimePackage } from './runtime-packages.ts';

/** Where the Dockerfile puts an image's runtime tree. */
const APP_DIR = '/app';

export interface PushedImage { registry: string; name: string; digest: string }

export const pushedReference = (image: PushedImage): string => `${image.registry}/${image.name}@${image.digest}`;

/** The packages in the image's /app, copied out of a container made (not run) from the pushed digest. */
export async function imagePackages(image: PushedImage): Promise<RuntimePackage[]> {
  const reference = pushedReference(image);
  const dir = await mkdtemp(join(tmpdir(), 'release-sbom-'));
  try {
    const container = (await docker(['create', reference], `docker create ${reference}`)).trim();
    try {
      await docker(['cp', `${container}:${APP_DIR}`, dir], `docker cp ${APP_DIR} out of ${reference}`);
    } finally {
      await docker(['rm', container], `docker rm ${container}`);
    }
    return await runtimePackages(join(dir, 'app'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// An SPDX license expression: license ids joined by AND, OR or WITH, parentheses allowed. Anything else
// ("SEE LICENSE IN …") is declared NOASSERTION rather than written as an invalid expression.
function licenseExpression(license: string | undefined): string {
  const tokens = (license ?? '').replace(/[()]/g, ' ').split(/\s+/).filter((t) => t !== '');
  const operator = (t: string): boolean => t === 'AND' || t === 'OR' || t === 'WITH';
  const valid = tokens.length % 2 === 1 && tokens.every((t, i) => (i % 2 === 1 ? operator(t) : /^[A-Za-z0-9.+-]+$/.test(t) && !operator(t)));
  return valid ? license ?? 'NOASSERTION' : 'NOASSERTION';
}

// Package URLs (github.com/package-url/purl-spec): the scope's "@" is percent-encoded.
const npmPurl = (p: RuntimePackage): string => `pkg:npm/${p.name.replace(/^@/, '%40')}@${encodeURIComponent(p.version)}`;
// Numbered: a name may be installed twice (two versions), and "@" and "/" are not allowed in an SPDX id.
const spdxId = (p: RuntimePackage, index: number): string => `SPDXRef-Package-${String(index + 1)}-${p.name.replace(/[^A-Za-z0-9.]+/g, '-')}`;

function spdxPackage(p: RuntimePackage, index: number): Record<string, unknown> {
  const sha512 = p.integrity?.startsWith('sha512-') === true ? Buffer.from(p.integrity.slice('sha512-'.length), 'base64').toString('hex') : undefined;
  return {
    name: p.name, SPDXID: spdxId(p, index), versionInfo: p.version, packageFileName: `${APP_DIR}/${p.location}`,
    downloadLocation: 'NOASSERTION', filesAnalyzed: false, licenseDeclared: licenseExpression(p.license),
    // The project's own packages are not on the npm registry: no purl would find them.
    ...(p.own ? { primaryPackagePurpose: 'APPLICATION' } : { externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: npmPurl(p) }] }),
    ...(sha512 === undefined ? {} : { checksums: [{ algorithm: 'SHA512', checksumValue: sha512 }] }),
  };
}

/** The SPDX 2.3 document of `image`: the image as a container package that CONTAINS each of `packages`. */
export function spdxDocument(image: PushedImage, packages: readonly RuntimePackage[], created = new Date()): Record<string, unknown> {
  const imageId = 'SPDXRef-Image';
  const hex = image.digest.replace(/^sha256:/, '');
  return {
    spdxVersion: 'SPDX-2.3', dataLicense: 'CC0-1.0', SPDXID: 'SPDXRef-DOCUMENT', name: pushedReference(image),
    documentNamespace: `https://spdx.org/spdxdocs/${image.name}-${hex}-${randomUUID()}`,
    creationInfo: {
      created: created.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      creators: ['Tool: k8s-operators-release'],
      comment: `The npm packages in the image's ${APP_DIR} (its runtime tree), the project's own included. Not listed: what the base image brings outside ${APP_DIR}, Node.js and the operating system's packages.`,
    },
    documentDescribes: [imageId],
    packages: [
      {
        name: image.name, SPDXID: imageId, versionInfo: image.digest, downloadLocation: 'NOASSERTION', filesAnalyzed: false,
        primaryPackagePurpose: 'CONTAINER', checksums: [{ algorithm: 'SHA256', checksumValue: hex }],
        externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: `pkg:oci/${image.name}@${encodeURIComponent(image.digest)}?repository_url=${encodeURIComponent(`${image.registry}/${image.name}`)}` }],
      },
      ...packages.map(spdxPackage),
    ],
    relationships: [
      { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: imageId },
      ...packages.map((p, index) => ({ spdxElementId: imageId, relationshipType: 'CONTAINS', relatedSpdxElement: spdxId(p, index) })),
    ],
  };
}
