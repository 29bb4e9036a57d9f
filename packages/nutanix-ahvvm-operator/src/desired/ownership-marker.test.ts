import { describe, expect, it } from 'vitest';
import { descriptionWithOwnerMarker, ownerUidOf } from './ownership-marker.ts';

const UID = '92cf13c0-c68f-4ef8-8d18-ade4aac450df';

describe('ownership marker', () => {
  it('is the whole description when the user gave none', () => {
    expect(descriptionWithOwnerMarker(undefined, UID)).toBe(`nutanix.com/ahvvm-owner-uid: ${UID}`);
    expect(descriptionWithOwnerMarker('', UID)).toBe(`nutanix.com/ahvvm-owner-uid: ${UID}`);
  });

  it('follows the user description on a line of its own and reads back', () => {
    const description = descriptionWithOwnerMarker('web tier\nowned by team a', UID);
    expect(description).toBe(`web tier\nowned by team a\nnutanix.com/ahvvm-owner-uid: ${UID}`);
    expect(ownerUidOf(description)).toBe(UID);
  });

  it('reads the last marker, so a marker-like line in the user text cannot claim the VM', () => {
    const description = descriptionWithOwnerMarker('nutanix.com/ahvvm-owner-uid: someone-else', UID);
    expect(ownerUidOf(description)).toBe(UID);
  });

  it('finds no owner in descriptions without a marker', () => {
    expect(ownerUidOf(undefined)).toBeUndefined();
    expect(ownerUidOf('made by hand')).toBeUndefined();
    expect(ownerUidOf(`prefix nutanix.com/ahvvm-owner-uid: ${UID}`)).toBeUndefined();
  });
});
