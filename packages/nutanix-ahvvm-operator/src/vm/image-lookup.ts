/**
 * Which image an `image_lookup` picks, as CAPX's `imageLookup` picks one (v1.10.3 `controllers/helpers.go`
 * `GetImageByLookup` and `sortImagesByLatestCreationTime`; v1.7.0 the same over v3): every image in Prism Central is
 * listed, those whose name the pattern matches are kept — a regular expression searched anywhere in the name, as Go's
 * `regexp.Match` does, so `^` and `$` anchor it — and the one created last wins. Images without a creation time come
 * after those with one.
 */

/** An image as both APIs list it: v3 `metadata.uuid`, `spec.name`, `metadata.creation_time`; v4 `extId`, `name`, `createTime`. */
export interface ImageSummary {
  uuid: string;
  name: string;
  /** RFC 3339. */
  createTime?: string;
}

/** UUIDs of the images whose name `pattern` matches, newest first; `pattern` must be a valid regular expression. */
export function imagesMatchingNewestFirst(images: readonly ImageSummary[], pattern: string): string[] {
  const expression = new RegExp(pattern, 'u');
  const created = (image: ImageSummary): number => (image.createTime === undefined ? Number.NaN : Date.parse(image.createTime));
  return images
    .filter((image) => expression.test(image.name))
    .map((image) => ({ uuid: image.uuid.toLowerCase(), created: created(image) }))
    .sort((a, b) => (Number.isNaN(a.created) ? (Number.isNaN(b.created) ? 0 : 1) : Number.isNaN(b.created) ? -1 : b.created - a.created))
    .map((image) => image.uuid);
}
