/**
 * How a VM in Prism says which AhvVm owns it: a last line in its description, `nutanix.com/ahvvm-owner-uid: <uid>`,
 * carrying the resource's `metadata.uid`.
 *
 * Why the description and not a category: a category key and value must exist in Prism Central before a VM can carry
 * them, and a value per resource UID would mean creating one category value per VM, with category-admin rights the
 * operator should not need. A description is accepted by every Prism Central as is. The UUID recorded in
 * `status.uuid` stays the primary identity; the marker matters only when that record is missing (lost status, a
 * restored cluster) and the VM must be found by name, where it tells our VM from a namesake. User categories from
 * `spec.categories` are applied as given.
 */

const MARKER_PREFIX = 'nutanix.com/ahvvm-owner-uid: ';
const MARKER_LINE = /^nutanix\.com\/ahvvm-owner-uid: (\S+)$/gm;

/** The Prism description: the user's text, if any, then the marker on its own line. */
export function descriptionWithOwnerMarker(userDescription: string | undefined, ownerUid: string): string {
  const marker = `${MARKER_PREFIX}${ownerUid}`;
  return userDescription === undefined || userDescription === '' ? marker : `${userDescription}\n${marker}`;
}

/** The owner UID a description carries: the last marker line, so a marker-like line typed by a user cannot win. */
export function ownerUidOf(description: string | undefined): string | undefined {
  let uid: string | undefined;
  for (const match of (description ?? '').matchAll(MARKER_LINE)) uid = match[1];
  return uid;
}
