// npm run release -- --version X [--registry R] [--out DIR] [--push | --digests FILE]: each operator's install.yaml
// (and its monitoring and network-policy options) and Helm chart, generated from deploy/ with the release's images.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { findProvisionedTool } from '@k8s-operators/testkit';
import { attestReleaseImage } from './attest/attest-image.ts';
import { pushedReference } from './attest/image-sbom.ts';
import { sourceState } from './attest/provenance.ts';
import { pushReleaseImages } from './push-images.ts';
import { parseReleaseOptions, readImageDigests, USAGE, type ReleaseOptions } from './release-options.ts';
import { releaseImageNames, writeRelease } from './release.ts';
import { offlineCosignFlags, signFile, signImage } from './sign-release.ts';

/** The digests the manifests pin: the ones this run's push returned, the ones --digests names, or none (tags only). */
async function releaseDigests(options: ReleaseOptions, images: readonly string[], say: (line: string) => void): Promise<Record<string, string> | undefined> {
  if (options.push) return pushReleaseImages(images, options.registry, options.version, say);
  if (options.digestsFile !== undefined) return readImageDigests(options.digestsFile, images);
  return undefined;
}

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
let options;
try {
  options = parseReleaseOptions(args);
} catch (error) {
  console.error(`release: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
// cosign's offline settings, written while signing and removed after.
let scratch: string | undefined;
try {
  // The project's own kubectl (its kustomize), the one the tests build deploy/ with.
  const kubectl = `${await findProvisionedTool('control-plane')}/kubectl`;
  const say = (line: string): void => { console.error(line); };
  const images = releaseImageNames();
  const startedOn = new Date();
  // What the provenance says the images were built from: the tree as it is when their build starts.
  const source = options.signKey === undefined ? undefined : await sourceState();
  const digests = await releaseDigests(options, images, say);
  const finishedOn = new Date();
  const released = await writeRelease(kubectl, { registry: options.registry, version: options.version, ...(digests === undefined ? {} : { digests }) }, options.outDir);
  if (options.signKey !== undefined && digests !== undefined && source !== undefined) {
    scratch = await mkdtemp(join(tmpdir(), 'release-cosign-'));
    const signer = { binary: await findProvisionedTool('cosign'), key: options.signKey, offline: (await offlineCosignFlags(scratch)).sign };
    const build = { version: options.version, source, startedOn, finishedOn };
    for (const name of images) {
      const image = { registry: options.registry, name, digest: digests[name] ?? '' };
      await signImage(signer, pushedReference(image));
      say(`release: signed ${pushedReference(image)}`);
      say(`release: attested its SBOM (${String(await attestReleaseImage(signer, image, build))} npm packages) and provenance`);
    }
    for (const { files } of released) {
      const install = files.find((file) => file.endsWith('/install.yaml'));
      if (install !== undefined) say(`release: signed ${relative(process.cwd(), install)} (${relative(process.cwd(), await signFile(signer, install))})`);
    }
  }
  for (const { operator, files } of released) {
    console.error(`release: ${operator}: ${files.length} files, install.yaml and chart/ in ${relative(process.cwd(), files[0]?.replace(/\/install\.yaml$/, '') ?? options.outDir)}`);
  }
  console.log(options.outDir);
} catch (error) {
  console.error(`release: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
}
