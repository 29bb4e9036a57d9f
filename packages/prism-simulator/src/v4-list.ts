// The list conventions every v4 list call shares (the SDK README's rules): `$page` from 0, `$limit` 1–100 with a
// default of 50, `$orderby` on the fields a list names (asc or desc), `metadata.totalAvailableResults` counting all
// matches, HATEOAS `links` (self, first, prev, next, last), and no `data` on an empty page.

import { V4_RESERVED, invalidArgument, responseMetadata } from './v4-errors.ts';
import type { HttpReply } from './http-io.ts';

/** `$limit` when none is given, and the most one page holds (SDK README: "between 0 and 100 … default value of 50"). */
export const V4_DEFAULT_LIMIT = 50;
export const V4_MAX_LIMIT = 100;

export interface V4ListShape<T> {
  /** `$objectType` of the answer, e.g. `vmm.v4.ahv.config.ListVmsApiResponse`. */
  responseType: string;
  /** `$objectType` of one item, e.g. `vmm.v4.ahv.config.Vm`. */
  itemType: string;
  /** The fields `$orderby` may name, and how to read each from an item. */
  orderBy: Readonly<Record<string, (item: T) => string>>;
  render: (item: T) => unknown;
}

/** One page of `matches` (already filtered) as the list answer, ordered and paged as the query asks. */
export function v4ListReply<T>(url: URL, matches: readonly T[], shape: V4ListShape<T>): HttpReply {
  const query = url.searchParams;
  const limit = integerParam(query.get('$limit'), '$limit', 1, V4_MAX_LIMIT) ?? V4_DEFAULT_LIMIT;
  const page = integerParam(query.get('$page'), '$page', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const ordered = orderedBy(matches, (query.get('$orderby') ?? '').trim(), shape.orderBy);
  const items = ordered.slice(page * limit, page * limit + limit);
  const lastPage = Math.max(0, Math.ceil(ordered.length / limit) - 1);
  const link = (rel: string, target: number): { href: string; rel: string } => {
    const href = new URL(url);
    href.searchParams.set('$page', String(target));
    href.searchParams.set('$limit', String(limit));
    return { href: href.toString(), rel };
  };
  const links = [
    { href: url.toString(), rel: 'self' },
    link('first', 0),
    ...(page > 0 ? [link('prev', Math.min(page - 1, lastPage))] : []),
    ...(page < lastPage ? [link('next', page + 1)] : []),
    link('last', lastPage),
  ];
  return {
    status: 200,
    json: {
      $objectType: shape.responseType,
      $reserved: { ...V4_RESERVED },
      // An empty page has no `data` (unverified; clients check `data` for nil, and an empty array decodes the same).
      ...(items.length > 0 ? { $dataItemDiscriminator: `List<${shape.itemType}>`, data: items.map(shape.render) } : {}),
      metadata: responseMetadata({ hasError: false, paginated: true, links, totalAvailableResults: ordered.length }),
    },
  };
}

function orderedBy<T>(matches: readonly T[], orderBy: string, fields: Readonly<Record<string, (item: T) => string>>): T[] {
  if (orderBy === '') return [...matches];
  const order = /^(\S+)(\s+(asc|desc))?$/i.exec(orderBy);
  const read = order ? fields[order[1] ?? ''] : undefined;
  if (!order || read === undefined) {
    throw invalidArgument(`$orderby '${orderBy}' is not supported by the simulator (it sorts by ${Object.keys(fields).join(' or ')}, asc or desc).`);
  }
  const direction = order[3]?.toLowerCase() === 'desc' ? -1 : 1;
  return [...matches].sort((a, b) => direction * (read(a) < read(b) ? -1 : read(a) > read(b) ? 1 : 0));
}

function integerParam(raw: string | null, name: string, minimum: number, maximum: number): number | undefined {
  if (raw === null) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < minimum || value > maximum) throw invalidArgument(`${name} must be an integer between ${minimum} and ${maximum}, not '${raw}'.`);
  return value;
}
