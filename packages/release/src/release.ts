// One release: per operator, the kustomize builds of deploy/ with the release's images, written as install.yaml and
// its two options, and as a Helm chart generated from the same builds.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChartImage, ImageValuesKey } from './chart/chart-templates.ts';
import { writeChart } from './chart/write-chart.ts';
import { writeInstallBundle, type RenderedOperator } from './install-bundle.ts';
import { kustomizeBuild } from './kustomize-build.ts';
import { pinReleaseImages, releasedImage, type ImageRelease } from './release-images.ts';
import { operatorSources, RELEASED_OPERATORS, type ReleasedOperator } from './released-operators.ts';

/** The operator's manifests as the release installs them: deploy/'s three builds with the release's images. */
export async function renderOperator(kubectl: string, operator: ReleasedOperator, release: ImageRelease): Promise<RenderedOperator> {
  const sources = operatorSources(operator);
  const build = async (dir: string): Promise<RenderedOperator['install']> => pinReleaseImages(await kustomizeBuild(kubectl, dir), sources.images, release);
  return { install: await build(sources.install), monitoring: await build(sources.monitoring), networkPolicy: await build(sources.networkPolicy) };
}

/** The chart's image values: the first image is the operator's own (`image`), the page server has its own key. */
export function chartImages(operator: ReleasedOperator, release: ImageRelease): (ChartImage & { values: { repository: string; tag: string; digest: string } })[] {
  return operatorSources(operator).images.map((name, index) => {
    const valuesKey: ImageValuesKey = index === 0 ? 'image' : 'pageServerImage';
    return { valuesKey, reference: releasedImage(name, release), values: { repository: `${release.registry}/${name}`, tag: release.version, digest: release.digests?.[name] ?? '' } };
  });
}

/** Every image the release ships, once (the MaintPage page server included). */
export const releaseImageNames = (): string[] => RELEASED_OPERATORS.flatMap((operator) => operatorSources(operator).images);

export interface ReleasedFiles { operator: ReleasedOperator; files: string[] }

export async function writeRelease(kubectl: string, release: ImageRelease, outDir: string): Promise<ReleasedFiles[]> {
  const written = [];
  for (const operator of RELEASED_OPERATORS) {
    const dir = join(outDir, operator);
    await mkdir(dir, { recursive: true });
    const rendered = await renderOperator(kubectl, operator, release);
    const bundle = await writeInstallBundle(dir, operator, release.version, rendered);
    const chart = await writeChart(join(dir, 'chart'), { operator, version: release.version, description: operatorSources(operator).description, images: chartImages(operator, release) }, rendered);
    written.push({ operator, files: [...bundle, ...chart] });
  }
  return written;
}
