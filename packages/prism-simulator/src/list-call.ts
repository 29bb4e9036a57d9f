// What every v3 list call (POST /vms/list, /clusters/list, /images/list, /subnets/list, /categories/list and
// /categories/{name}/list) shares: the `<kind>_list_metadata` body, its FIQL filter, and the reply's `metadata`,
// which echoes the filter and sort the client sent. Which entities match, and how each is shown, is the caller's.

import { API_VERSION, PrismApiError, REQUEST_NOT_PROCESSED, invalidRequest } from './errors.ts';
import { FiqlError, parseNameFilter, type EntityPredicate } from './fiql.ts';
import type { HttpReply } from './http-io.ts';
import type { Page, SortOrder } from './paging.ts';
import { validate, type ObjectSchema } from './schema-validation.ts';

export interface ListInput {
  kind?: string;
  filter?: string;
  length?: number;
  offset?: number;
  sort_attribute?: string;
  sort_order?: SortOrder;
}

/** `<kind>_list_metadata` of the v3.1 swagger. */
export function listMetadataSchema(kind: string): ObjectSchema {
  return {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: [kind] },
      filter: { type: 'string' },
      length: { type: 'integer', minimum: 1 },
      offset: { type: 'integer', minimum: 0 },
      sort_attribute: { type: 'string' },
      sort_order: { type: 'string', enum: ['ASCENDING', 'DESCENDING'] },
    },
  };
}

/** The body of a list call (none is fine), or a 422 naming what does not fit `<kind>_list_metadata`. */
export function parseListInput(body: unknown, kind: string): ListInput {
  const input = (body ?? {}) as ListInput;
  const details = validate(listMetadataSchema(kind), input);
  if (Object.keys(details).length > 0) throw invalidRequest(details, kind);
  return input;
}

/** The filter as a predicate over names, `selector` being its one selector; a 400 saying why when it cannot be parsed. */
export function listFilter(filter: string | undefined, selector: string, kind: string): EntityPredicate {
  try {
    return parseNameFilter(filter, selector);
  } catch (error) {
    if (!(error instanceof FiqlError)) throw error;
    throw new PrismApiError(400, 'INVALID_REQUEST', REQUEST_NOT_PROCESSED, { kind, details: { filter: [error.message] } });
  }
}

/** The 200 a list call answers with: `page`'s entities, each shown by `render`. */
export function listReply<T>(kind: string, input: ListInput, page: Page<T>, render: (item: T) => unknown): HttpReply {
  return {
    status: 200,
    json: {
      api_version: API_VERSION,
      metadata: {
        ...(input.filter === undefined ? {} : { filter: input.filter }),
        kind,
        ...(input.sort_attribute === undefined ? {} : { sort_attribute: input.sort_attribute }),
        ...(input.sort_order === undefined ? {} : { sort_order: input.sort_order }),
        offset: page.offset,
        length: page.items.length,
        total_matches: page.totalMatches,
      },
      entities: page.items.map(render),
    },
  };
}
