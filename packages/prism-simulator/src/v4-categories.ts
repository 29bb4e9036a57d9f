// The Prism v4.2 categories API (`/api/prism/v4.2/config/categories`, prism-go-client/v4 api/categories_api.go and
// the `prism.v4.config.Category` model) over the categories the v3 API keeps. v4 names each key:value pair by an
// extId (v3 names them by key and value); `categoryExtId` derives it from the pair, so both APIs and the VMs' category
// references agree without a second store. Lists take `$filter` (OData, on extId, key, value and type), `$orderby`
// (key, value), `$page` and `$limit`; `$expand` (associations) is not simulated and refused rather than ignored.
// Creates (CAPX creates the categories it puts on machines when they are missing) and deletes change the v3 store.
// A GET sends the category's ETag, and a DELETE needs it back in If-Match (428 without, 412 when the category changed
// since), as for VMs: CAPX reads the category for its ETag before it deletes it at cluster deletion.

import { createHash } from 'node:crypto';
import type { CategoryPair, CategoryStore } from './categories.ts';
import type { HttpReply } from './http-io.ts';
import { isPlainObject } from './schema-validation.ts';
import { v4Envelope, v4Object } from './v4-envelope.ts';
import { V4ApiError, invalidArgument } from './v4-errors.ts';
import { v4ListReply } from './v4-list.ts';
import { parseODataFilter } from './v4-odata.ts';
import { categoryExtId } from './v4-vm-model.ts';

const CONFIG = 'prism.v4.config';
const FILTER_FIELDS = ['extId', 'key', 'value', 'type'] as const;
/** Every category made through the simulator is a user's: system categories of a real PC are not modelled. */
const TYPE = 'USER';

/** The ETag of a category's current version: it changes when its description does (v3 can change it). */
function categoryEtag(pair: CategoryPair): string {
  return createHash('sha256').update(JSON.stringify([pair.key, pair.value, pair.description ?? null])).digest('base64url').slice(0, 24);
}

/** The categories a v4 client reads: every key:value pair with its extId, the owner being the logged-in user. */
export class V4Categories {
  private readonly store: CategoryStore;
  private readonly ownerUuid: string;

  constructor(store: CategoryStore, ownerUuid: string) {
    this.store = store;
    this.ownerUuid = ownerUuid;
  }

  /** GET …/categories. */
  list(url: URL): HttpReply {
    if (url.searchParams.has('$expand')) throw invalidArgument('$expand is not supported by the simulator (it does not count the entities associated with categories).');
    const predicate = parseODataFilter(url.searchParams.get('$filter') ?? undefined, FILTER_FIELDS);
    const matches = this.store.pairs().filter((pair) => predicate({ extId: categoryExtId(pair.key, pair.value), key: pair.key, value: pair.value, type: TYPE }));
    return v4ListReply(url, matches, {
      responseType: `${CONFIG}.ListCategoriesApiResponse`,
      itemType: `${CONFIG}.Category`,
      orderBy: { key: (pair) => pair.key, value: (pair) => pair.value },
      render: (pair) => this.render(pair),
    });
  }

  /** GET …/categories/{extId}: 404 `CATEGORY_NOT_FOUND` for an extId no key:value pair has. */
  get(extId: string, url: URL): HttpReply {
    const pair = this.existing(extId);
    return { status: 200, headers: { etag: categoryEtag(pair) }, json: this.envelope('GetCategoryApiResponse', pair, url) };
  }

  /** POST …/categories: 201 with the new category; 409 `CATEGORY_ALREADY_EXISTS` when the pair exists. */
  create(body: unknown, url: URL): HttpReply {
    if (!isPlainObject(body)) throw invalidArgument('The request body must be a prism.v4.config.Category object.');
    const { key, value, description } = body;
    if (typeof key !== 'string' || typeof value !== 'string') throw invalidArgument('key and value: a category needs both, as strings.');
    if (description !== undefined && typeof description !== 'string') throw invalidArgument(`description: ${JSON.stringify(description)} is not a string.`);
    const extId = categoryExtId(key, value);
    if (this.find(extId)) throw new V4ApiError(409, 'CATEGORY_ALREADY_EXISTS', 'PRISM-40901', `Category ${key}:${value} already exists (extId '${extId}').`);
    this.store.addPair(key, value, description);
    const pair = this.find(extId);
    if (!pair) throw new Error(`category ${key}:${value} was not stored`);
    return { status: 201, json: this.envelope('CreateCategoryApiResponse', pair, url) };
  }

  /**
   * DELETE …/categories/{extId} with the ETag of a GET in If-Match: 204; 409 (the v3 `CATEGORY_VALUE_IN_USE`) while a
   * VM carries it. The key stays, as after a v3 value delete.
   */
  delete(extId: string, ifMatch: string | undefined): HttpReply {
    const pair = this.existing(extId);
    if (ifMatch === undefined || ifMatch.trim() === '') {
      throw new V4ApiError(428, 'MISSING_ETAG_HEADER', 'PLAT-10004', 'The If-Match header is missing: send the ETag of a GET of the category.');
    }
    if (ifMatch.trim() !== categoryEtag(pair)) throw new V4ApiError(412, 'INVALID_ETAG_HEADER', 'PLAT-10005', 'Invalid eTag header: the category has changed since it was read; GET it again for its current ETag.');
    this.store.deleteValue(pair.key, pair.value);
    return { status: 204 };
  }

  private find(extId: string): CategoryPair | undefined {
    return this.store.pairs().find((candidate) => categoryExtId(candidate.key, candidate.value) === extId.toLowerCase());
  }

  private existing(extId: string): CategoryPair {
    const pair = this.find(extId);
    if (!pair) throw new V4ApiError(404, 'CATEGORY_NOT_FOUND', 'PRISM-40401', `Category with extId '${extId}' does not exist.`);
    return pair;
  }

  private envelope(responseType: string, pair: CategoryPair, url: URL): Record<string, unknown> {
    return v4Envelope(`${CONFIG}.${responseType}`, `${CONFIG}.Category`, this.render(pair), url);
  }

  private render(pair: CategoryPair): Record<string, unknown> {
    return v4Object(`${CONFIG}.Category`, {
      extId: categoryExtId(pair.key, pair.value),
      key: pair.key,
      value: pair.value,
      ...(pair.description === undefined ? {} : { description: pair.description }),
      type: TYPE,
      ownerUuid: this.ownerUuid,
    });
  }
}
