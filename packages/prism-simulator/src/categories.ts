// The v3 categories API: keys (`/categories/{name}`) and their values (`/categories/{name}/{value}`), which VMs
// carry in `metadata.categories` / `metadata.categories_mapping`. Shapes follow the v3.1 swagger
// (`category_key`, `category_key_status`, `category_value`, `category_value_status`, `category_list_metadata`)
// and prism-go-client's structs. The documentation does not say how unknown keys and values are answered; the answers
// follow what clients test for against real Prism Centrals (see the README's choices):
//
//   unknown key                    -> 404 ENTITY_NOT_FOUND           (TF's category-key acceptance test waits for it)
//   unknown value of a known key   -> 404 CATEGORY_NAME_VALUE_MISMATCH (CAPX v1.7 getCategoryValue and TF's
//                                      category-value acceptance test treat exactly this reason as "not there")
//   DELETE of a key with values    -> 409, refused                     (every client deletes the values first)
//   DELETE of a value a VM carries -> 409, refused                     (CAPX PR #95 / NCN-101935 saw this refused)

import { API_VERSION, PrismApiError, addDetail, invalidRequest, type ErrorDetails } from './errors.ts';
import type { HttpReply } from './http-io.ts';
import { listFilter, listReply, parseListInput } from './list-call.ts';
import { pageOf, sortByName } from './paging.ts';
import { isPlainObject, validate, type ObjectSchema } from './schema-validation.ts';

const KIND = 'category';

/** A category key and its values, as a simulator is started with them. */
export interface CategorySeed {
  name: string;
  description?: string;
  values: string[];
}

/**
 * The simulator's own starting categories, so that the operator's samples and tests (`Environment: Dev`, then
 * `Prod`) work without setting anything up. A real PC ships system-defined categories of its own; which keys and
 * values those are is not modelled (see "Not simulated").
 */
export const DEFAULT_CATEGORIES: readonly CategorySeed[] = [
  { name: 'Environment', description: 'Environment of the workload (a simulator seed).', values: ['Dev', 'Testing', 'Staging', 'Prod', 'Production'] },
];

/** Swagger `category_key`'s path pattern for `{name}` and `{value}`, with their 64-character limit. */
const NAME_PATTERN = /^[a-zA-Z0-9_.-]+( [a-zA-Z0-9_.-]+)*$/;
const NAME_MAX_LENGTH = 64;

interface CategoryValueRecord {
  value: string;
  description: string | undefined;
  assignmentRule: unknown;
}

interface CategoryKeyRecord {
  name: string;
  description: string | undefined;
  capabilities: unknown;
  values: Map<string, CategoryValueRecord>;
}

/** A key:value pair, as v4 lists categories; the description is the value's. */
export interface CategoryPair {
  key: string;
  value: string;
  description?: string;
}

/** Who carries a category value: the names of the VMs (and how many there are). */
export type CategoryUsage = (key: string, value: string) => string[];

/** `category_key`. */
const keySchema: ObjectSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    api_version: { type: 'string' },
    name: { type: 'string', maxLength: NAME_MAX_LENGTH },
    description: { type: 'string', maxLength: 1000 },
    capabilities: { type: 'object', properties: { cardinality: { type: 'integer', minimum: 1 } } },
  },
};

/** `category_value`. */
const valueSchema: ObjectSchema = {
  type: 'object',
  properties: {
    api_version: { type: 'string' },
    value: { type: 'string', maxLength: NAME_MAX_LENGTH },
    description: { type: 'string', maxLength: 1000 },
    assignment_rule: { type: 'object' },
  },
};

interface KeyInput {
  name: string;
  description?: string;
  capabilities?: { cardinality?: number };
}

interface ValueInput {
  value?: string;
  description?: string;
  assignment_rule?: unknown;
}

export class CategoryStore {
  private readonly keys = new Map<string, CategoryKeyRecord>();
  private readonly usage: CategoryUsage;

  /** Validates the seeds so that a typo fails at start-up. */
  constructor(seeds: readonly CategorySeed[], usage: CategoryUsage) {
    this.usage = usage;
    for (const seed of seeds) {
      const problems = [...nameProblems(seed.name, 'name'), ...seed.values.flatMap((value) => nameProblems(value, 'value'))];
      if (problems.length > 0) throw new Error(`category seed ${seed.name}: ${problems.join('; ')}`);
      if (this.keys.has(seed.name)) throw new Error(`category key ${seed.name} is seeded twice`);
      const values = new Map(seed.values.map((value) => [value, { value, description: undefined, assignmentRule: undefined }]));
      if (values.size !== seed.values.length) throw new Error(`category key ${seed.name} has a value seeded twice`);
      this.keys.set(seed.name, { name: seed.name, description: seed.description, capabilities: undefined, values });
    }
  }

  /** Every key with its values, in creation order. */
  snapshot(): CategorySeed[] {
    return [...this.keys.values()].map((key) => ({ name: key.name, ...(key.description === undefined ? {} : { description: key.description }), values: [...key.values.keys()] }));
  }

  /** Every key:value pair, keys in creation order and each key's values in theirs. */
  pairs(): CategoryPair[] {
    return [...this.keys.values()].flatMap((key) =>
      [...key.values.values()].map((value) => ({ key: key.name, value: value.value, ...(value.description === undefined ? {} : { description: value.description }) })),
    );
  }

  /**
   * Adds a key:value pair, and its key when it is new (v4 has no keys of their own: a category is a pair). Names follow
   * the v3 rules; a name v3 refuses is refused here too, so that both APIs always show the same categories.
   */
  addPair(key: string, value: string, description: string | undefined): void {
    const details: ErrorDetails = {};
    for (const problem of nameProblems(key, 'name')) addDetail(details, 'key', problem);
    for (const problem of nameProblems(value, 'value')) addDetail(details, 'value', problem);
    if (Object.keys(details).length > 0) throw invalidRequest(details, KIND);
    const record = this.keys.get(key) ?? { name: key, description: undefined, capabilities: undefined, values: new Map<string, CategoryValueRecord>() };
    record.values.set(value, { value, description, assignmentRule: undefined });
    this.keys.set(key, record);
  }

  /** The `key:value` pairs of `mapping` that do not exist, in the order given. */
  missing(mapping: Readonly<Record<string, readonly string[]>>): string[] {
    return Object.entries(mapping).flatMap(([key, values]) => values.filter((value) => this.keys.get(key)?.values.has(value) !== true).map((value) => `${key}:${value}`));
  }

  /** POST /categories/list: the keys, paged and sorted like the other v3 lists; the filter knows `name`. */
  listKeys(body: unknown): HttpReply {
    const input = parseListInput(body, KIND);
    const predicate = listFilter(input.filter, 'name', KIND);
    const keys = [...this.keys.values()].filter((key) => predicate({ name: key.name }));
    const page = pageOf(sortByName(keys, (key) => key.name, input.sort_attribute, input.sort_order), input);
    return listReply(KIND, input, page, keyStatus);
  }

  /** GET /categories/{name}. */
  getKey(name: string): HttpReply {
    return { status: 200, json: { api_version: API_VERSION, ...keyStatus(this.key(name)) } };
  }

  /** PUT /categories/{name}: creates the key (201) or replaces its description and capabilities (200). */
  putKey(name: string, body: unknown): HttpReply {
    checkPutBody(keySchema, body, 'name', name);
    const input = body as KeyInput;
    const existing = this.keys.get(name);
    const record: CategoryKeyRecord = { name, description: input.description, capabilities: input.capabilities, values: existing?.values ?? new Map<string, CategoryValueRecord>() };
    this.keys.set(name, record);
    return { status: existing ? 200 : 201, json: { api_version: API_VERSION, ...keyStatus(record) } };
  }

  /** DELETE /categories/{name}: refused while the key has values. */
  deleteKey(name: string): HttpReply {
    const key = this.key(name);
    if (key.values.size > 0) {
      throw new PrismApiError(409, 'CATEGORY_KEY_HAS_VALUES', `Category ${name} still has ${key.values.size} value(s) (${listed([...key.values.keys()])}); delete them before the key.`, { kind: KIND });
    }
    this.keys.delete(name);
    // The real answer is a bare 200 (swagger: no schema; the Ansible modules delete with `no_response`).
    return { status: 200 };
  }

  /** POST /categories/{name}/list: the key's values; the filter knows `value`. */
  listValues(name: string, body: unknown): HttpReply {
    const key = this.key(name);
    const input = parseListInput(body, KIND);
    const predicate = listFilter(input.filter, 'value', KIND);
    const values = [...key.values.values()].filter((value) => predicate({ name: value.value }));
    const sortAttribute = input.sort_attribute === 'value' ? 'name' : input.sort_attribute;
    const page = pageOf(sortByName(values, (value) => value.value, sortAttribute, input.sort_order), input);
    return listReply(KIND, input, page, (value) => valueStatus(key, value));
  }

  /** GET /categories/{name}/{value}. */
  getValue(name: string, value: string): HttpReply {
    const key = this.key(name);
    return { status: 200, json: { api_version: API_VERSION, ...valueStatus(key, this.value(key, value)) } };
  }

  /** PUT /categories/{name}/{value}: creates the value (201) or replaces its description (200). */
  putValue(name: string, value: string, body: unknown): HttpReply {
    const key = this.key(name);
    checkPutBody(valueSchema, body, 'value', value);
    const input = body as ValueInput;
    const existing = key.values.has(value);
    const record: CategoryValueRecord = { value, description: input.description, assignmentRule: input.assignment_rule };
    key.values.set(value, record);
    return { status: existing ? 200 : 201, json: { api_version: API_VERSION, ...valueStatus(key, record) } };
  }

  /** DELETE /categories/{name}/{value}: refused while a VM carries the value. */
  deleteValue(name: string, value: string): HttpReply {
    const key = this.key(name);
    this.value(key, value);
    const vms = this.usage(name, value);
    if (vms.length > 0) {
      throw new PrismApiError(409, 'CATEGORY_VALUE_IN_USE', `Category ${name}:${value} is assigned to ${vms.length} VM(s) (${listed(vms)}); remove it from them first.`, { kind: KIND });
    }
    key.values.delete(value);
    return { status: 200 };
  }

  private key(name: string): CategoryKeyRecord {
    const key = this.keys.get(name);
    if (!key) throw new PrismApiError(404, 'ENTITY_NOT_FOUND', `Category ${name} does not exist.`, { kind: KIND });
    return key;
  }

  private value(key: CategoryKeyRecord, value: string): CategoryValueRecord {
    const record = key.values.get(value);
    if (!record) throw new PrismApiError(404, 'CATEGORY_NAME_VALUE_MISMATCH', `Category ${key.name} has no value ${value}.`, { kind: KIND });
    return record;
  }
}

/**
 * What a VM's `metadata` assigns: `categories_mapping` when `use_categories_mapping` is true ("the newer way of
 * assigning the categories", several values per key), otherwise `categories` (one value per key). `categories` as
 * shown has only the keys with exactly one value, since it cannot hold more.
 */
export function vmCategoryAssignment(metadata: { categories?: Record<string, string>; categories_mapping?: Record<string, string[]>; use_categories_mapping?: boolean }): {
  categories: Record<string, string>;
  categoriesMapping: Record<string, string[]>;
} {
  const mapping: Record<string, string[]> = {};
  if (metadata.use_categories_mapping === true) {
    for (const [key, values] of Object.entries(metadata.categories_mapping ?? {})) {
      const unique = [...new Set(values)];
      if (unique.length > 0) mapping[key] = unique;
    }
  } else {
    for (const [key, value] of Object.entries(metadata.categories ?? {})) mapping[key] = [value];
  }
  const categories: Record<string, string> = {};
  for (const [key, values] of Object.entries(mapping)) {
    const [only] = values;
    if (values.length === 1 && only !== undefined) categories[key] = only;
  }
  return { categories, categoriesMapping: mapping };
}

/** 422 for a VM that names categories that do not exist; the message names them. */
export function unknownCategories(missing: readonly string[]): PrismApiError {
  const details: ErrorDetails = { 'metadata.categories': missing.map((pair) => `Category ${pair} does not exist.`) };
  return new PrismApiError(422, 'INVALID_REQUEST', `Category ${missing.join(', ')} does not exist; create the key and value (PUT /categories/{name}/{value}) first.`, { details });
}

/**
 * A 422 for a PUT body that does not fit its schema, or whose `field` (the key's `name` or the value's `value`) is not a
 * valid category name or is not the one the path names.
 */
function checkPutBody(schema: ObjectSchema, body: unknown, field: 'name' | 'value', inPath: string): void {
  const details = validate(schema, body);
  for (const problem of nameProblems(inPath, field)) addDetail(details, field, problem);
  const named = isPlainObject(body) ? body[field] : undefined;
  if (typeof named === 'string' && named !== inPath) addDetail(details, field, `'${named}' is not the ${field === 'name' ? 'key' : 'value'} named in the path ('${inPath}')`);
  if (Object.keys(details).length > 0) throw invalidRequest(details, KIND);
}

function nameProblems(name: string, what: 'name' | 'value'): string[] {
  const problems: string[] = [];
  if (name.length > NAME_MAX_LENGTH) problems.push(`'${name}' is too long (a category ${what} has at most ${NAME_MAX_LENGTH} characters)`);
  if (!NAME_PATTERN.test(name)) problems.push(`'${name}' does not match '${NAME_PATTERN.source}'`);
  return problems;
}

/** `category_key_status` without `api_version` (list entities carry none). */
function keyStatus(key: CategoryKeyRecord): Record<string, unknown> {
  return {
    name: key.name,
    ...(key.description === undefined ? {} : { description: key.description }),
    ...(key.capabilities === undefined ? {} : { capabilities: structuredClone(key.capabilities) }),
    system_defined: false,
  };
}

/** `category_value_status` without `api_version`: `name` is the key. */
function valueStatus(key: CategoryKeyRecord, value: CategoryValueRecord): Record<string, unknown> {
  return {
    name: key.name,
    value: value.value,
    ...(value.description === undefined ? {} : { description: value.description }),
    ...(value.assignmentRule === undefined ? {} : { assignment_rule: structuredClone(value.assignmentRule) }),
    system_defined: false,
  };
}

/** Up to three names, then how many more. */
function listed(names: readonly string[]): string {
  const shown = names.slice(0, 3).join(', ');
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}
