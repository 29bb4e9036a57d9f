// Sorting and paging for v3 list calls.

/** virt-who saw "only the first 20 VMs" when it sent no length: the real default page length is 20. */
export const DEFAULT_PAGE_LENGTH = 20;

/**
 * The real maximum is unverified; prism-go-client pages with 100. Capping (rather than honouring any length)
 * makes a client that asks for "everything at once" see a short page and forces it to page by `total_matches`.
 */
export const MAX_PAGE_LENGTH = 500;

export interface PageRequest {
  offset?: number;
  length?: number;
}

export interface Page<T> {
  items: T[];
  offset: number;
  totalMatches: number;
}

export function pageOf<T>(items: readonly T[], request: PageRequest): Page<T> {
  const offset = request.offset ?? 0;
  const length = Math.min(request.length ?? DEFAULT_PAGE_LENGTH, MAX_PAGE_LENGTH);
  return { items: items.slice(offset, offset + length), offset, totalMatches: items.length };
}

export type SortOrder = 'ASCENDING' | 'DESCENDING';

/**
 * Sorts by name when asked to (`sort_attribute` `name` or `vm_name`); otherwise keeps creation order.
 * Other attributes are not simulated and are ignored. The sort is stable, so duplicate names keep
 * creation order.
 */
export function sortByName<T>(items: readonly T[], nameOf: (item: T) => string, attribute: string | undefined, order: SortOrder | undefined): T[] {
  const sorted = [...items];
  if (attribute !== 'name' && attribute !== 'vm_name') return sorted;
  const direction = order === 'DESCENDING' ? -1 : 1;
  sorted.sort((a, b) => direction * compareStrings(nameOf(a), nameOf(b)));
  return sorted;
}

function compareStrings(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}
