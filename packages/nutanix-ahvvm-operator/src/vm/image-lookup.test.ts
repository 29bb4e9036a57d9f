// The image CAPX's imageLookup picks, read from cluster-api-provider-nutanix v1.10.3 controllers/helpers.go:
// `GetImageByLookup` lists every image and keeps those whose name `regexp.MustCompile(rendered).Match` accepts (a search,
// not a whole-name match); `sortImagesByLatestCreationTime` puts the newest `CreateTime` first and images without one
// last; the first is used, and none is "failed to find image with filter …" (v1.7.0 does the same over v3 with
// `metadata.creation_time`).

import { describe, expect, it } from 'vitest';
import { imagesMatchingNewestFirst, type ImageSummary } from './image-lookup.ts';

const image = (uuid: string, name: string, createTime?: string): ImageSummary => ({ uuid, name, ...(createTime === undefined ? {} : { createTime }) });

const IMAGES = [
  image('A', 'ubuntu-22.04-kube-v1.30.5-20260101', '2026-01-01T00:00:00Z'),
  image('B', 'ubuntu-22.04-kube-v1.30.5-20260301', '2026-03-01T00:00:00Z'),
  image('C', 'ubuntu-22.04-kube-v1.30.5-undated'),
  image('D', 'ubuntu-22.04-kube-v1.30.5-20260201', '2026-02-01T10:00:00+01:00'),
  image('E', 'rocky-9-kube-v1.30.5-20260401', '2026-04-01T00:00:00Z'),
];

describe('imagesMatchingNewestFirst', () => {
  it('keeps the images the pattern matches, newest first, and those without a creation time last (newest wins)', () => {
    expect(imagesMatchingNewestFirst(IMAGES, 'ubuntu-22.04-kube-v1.30.5-')).toEqual(['b', 'd', 'a', 'c']);
  });

  it('searches the name as Go\'s regexp.Match does: unanchored unless the pattern anchors it', () => {
    expect(imagesMatchingNewestFirst(IMAGES, 'kube-v1.30.5-2026')).toEqual(['e', 'b', 'd', 'a']);
    expect(imagesMatchingNewestFirst(IMAGES, '^kube')).toEqual([]);
    expect(imagesMatchingNewestFirst(IMAGES, '^rocky-9-.*-20260401$')).toEqual(['e']);
  });

  it('finds nothing when no name matches', () => {
    expect(imagesMatchingNewestFirst(IMAGES, 'debian')).toEqual([]);
    expect(imagesMatchingNewestFirst([], '.*')).toEqual([]);
  });
});
