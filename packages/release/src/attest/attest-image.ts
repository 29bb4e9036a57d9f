// A pushed image's two attestations, each signed with the release's key and attached to the image by digest: its
// SBOM (`cosign attest --type spdxjson`) and its provenance (`--type slsaprovenance1`). A user checks either with
// `cosign verify-attestation --type <the same> --key cosign.pub <image>@<digest>`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attestImage, type Cosign } from '../sign-release.ts';
import { imagePackages, pushedReference, spdxDocument, type PushedImage } from './image-sbom.ts';
import { provenancePredicate, type BuildRun } from './provenance.ts';

/** Attests `image`'s SBOM and provenance; returns how many npm packages the SBOM lists. */
export async function attestReleaseImage(signer: Cosign, image: PushedImage, build: BuildRun): Promise<number> {
  const packages = await imagePackages(image);
  const dir = await mkdtemp(join(tmpdir(), 'release-attest-'));
  try {
    const sbom = join(dir, 'sbom.spdx.json');
    await writeFile(sbom, JSON.stringify(spdxDocument(image, packages)));
    await attestImage(signer, pushedReference(image), 'spdxjson', sbom);
    const provenance = join(dir, 'provenance.json');
    await writeFile(provenance, JSON.stringify(provenancePredicate(image, build)));
    await attestImage(signer, pushedReference(image), 'slsaprovenance1', provenance);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return packages.length;
}
