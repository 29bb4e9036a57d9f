// The images a release's manifests name. deploy/ names ghcr.io/k8s-operators/<image>:<development tag>, in container
// images and in flags (the MaintPage operator's --page-server-image); a release replaces every such reference with
// the release's registry and version, and with the image's digest when it is known, so what runs is what was pushed.
import { IMAGE_REGISTRY, IMAGE_TAG } from '@k8s-operators/testkit';
import { mapStrings, type K8sObject } from './k8s-object.ts';

export interface ImageRelease {
  registry: string;
  version: string;
  /** sha256:… per image name, once the images are pushed. */
  digests?: Readonly<Record<string, string>>;
}

export const developmentImage = (name: string): string => `${IMAGE_REGISTRY}/${name}:${IMAGE_TAG}`;

export function releasedImage(name: string, release: ImageRelease): string {
  const digest = release.digests?.[name];
  return `${release.registry}/${name}:${release.version}${digest === undefined ? '' : `@${digest}`}`;
}

/** `objects` with every reference to one of `images` pointing at the release; refuses an image deploy/ never names. */
export function pinReleaseImages(objects: readonly K8sObject[], images: readonly string[], release: ImageRelease): K8sObject[] {
  const found = new Set<string>();
  const pinned = objects.map((object) => mapStrings(object, (text) => images.reduce((out, name) => {
    if (!out.includes(developmentImage(name))) return out;
    found.add(name);
    return out.replaceAll(developmentImage(name), releasedImage(name, release));
  }, text)));
  const missing = images.filter((name) => !found.has(name));
  if (missing.length > 0 && objects.some((object) => object.kind === 'Deployment')) {
    throw new Error(`deploy/ names no ${missing.map(developmentImage).join(' or ')}: update the release's image list (released-operators.ts) or the manifests`);
  }
  return pinned;
}
