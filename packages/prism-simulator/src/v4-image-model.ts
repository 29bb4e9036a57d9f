// Images as vmm v4.2 content shows them (vmm-go-client/v4 v4.2.1, `vmm.v4.content.Image`), over the inventory the v3
// images come from: `createTime` is the v3 `creation_time` (CAPX's imageLookup takes the newest matching image by it,
// paging through the whole catalogue), `sizeBytes` the v3 `size_bytes`, and every image is on every cluster.

import { ADMIN_OWNER, IMAGE_TYPE, type Image } from './inventory.ts';
import { v4Object } from './v4-envelope.ts';
import type { V4InventoryResource } from './v4-inventory.ts';

const MODELS = 'vmm.v4.content';

/** Sort keys: times in one form (seeds may carry offsets), sizes padded so that they sort as numbers. */
const createTimeKey = (image: Image): string => new Date(image.creationTime).toISOString();
const sizeKey = (image: Image): string => String(image.sizeBytes).padStart(20, '0');

export const V4_IMAGES: V4InventoryResource<Image> = {
  models: MODELS,
  item: 'Image',
  listResponse: 'ListImagesApiResponse',
  getResponse: 'GetImageApiResponse',
  notFound: { errorGroup: 'IMAGE_NOT_FOUND', code: 'VMM-40404', label: 'Image' },
  items: (inventory) => inventory.images,
  extIdOf: (image) => image.uuid,
  filter: { name: (image) => image.name, extId: (image) => image.uuid, type: () => IMAGE_TYPE },
  orderBy: { name: (image) => image.name, createTime: createTimeKey, sizeBytes: sizeKey },
  render: (image, inventory) => v4Object(`${MODELS}.Image`, {
    extId: image.uuid,
    name: image.name,
    type: IMAGE_TYPE,
    sizeBytes: image.sizeBytes,
    createTime: image.creationTime,
    // Nothing changes an image here.
    lastUpdateTime: image.creationTime,
    ownerExtId: ADMIN_OWNER.uuid,
    ownerName: ADMIN_OWNER.name,
    clusterLocationExtIds: inventory.clusters.map((cluster) => cluster.uuid),
  }),
};
