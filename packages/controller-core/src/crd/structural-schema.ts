import type { TSchema } from 'typebox';

/**
 * Turns a TypeBox schema into the structural OpenAPI v3 schema `apiextensions.k8s.io/v1` requires
 * (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema),
 * or fails with the JSON path of the first construct the API server would reject, so the mistake surfaces in a unit
 * test rather than at `kubectl apply`.
 *
 * TypeBox spellings of things Kubernetes writes differently are translated:
 * - `Type.Literal(x)` and unions of literals of one type become `enum`; `Type.Enum` gains the `type` it lacks;
 * - `Type.Union([T, Type.Null()])` becomes T with `nullable: true`;
 * - `Type.Union([Type.Integer(), Type.String()])` becomes `x-kubernetes-int-or-string`;
 * - `Type.Record(Type.String(), T)` becomes `additionalProperties: T`;
 * - a numeric `exclusiveMinimum`/`exclusiveMaximum` (JSON Schema 2020) becomes a bound plus the OpenAPI v3 boolean.
 * TypeBox's own markers (`~kind`, `~optional` …, non-enumerable) and `$id`/`$schema` are dropped. Anything else not in
 * Kubernetes' JSONSchemaProps is rejected rather than passed through to be refused by the API server.
 */

/** A node of a CRD's OpenAPI v3 schema, with Kubernetes' JSON field names. */
export interface OpenApiSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema;
  items?: OpenApiSchema;
  required?: string[];
  [keyword: string]: unknown;
}

type Node = Record<string, unknown>;

const TYPES: readonly string[] = ['object', 'array', 'string', 'integer', 'number', 'boolean'];

/** Value validations: allowed anywhere, and the only thing a logical junctor's branches may hold. */
const VALUE_VALIDATIONS: readonly string[] = [
  'enum', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'multipleOf', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'required',
];
const JUNCTORS: readonly string[] = ['allOf', 'anyOf', 'oneOf', 'not'];
const NODE_KEYWORDS: readonly string[] = [
  ...VALUE_VALIDATIONS,
  ...JUNCTORS,
  'type', 'title', 'description', 'default', 'example', 'externalDocs', 'nullable', 'uniqueItems',
  'properties', 'additionalProperties', 'items',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations',
];
const CEL_RULE_KEYS: readonly string[] = ['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf'];

export class NonStructuralSchemaError extends Error {
  override name = 'NonStructuralSchemaError';
}

function fail(path: string, problem: string): never {
  throw new NonStructuralSchemaError(`${path}: ${problem}`);
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own enumerable keys minus TypeBox's bookkeeping. */
function withoutTypeBoxKeys(node: Node): Node {
  return Object.fromEntries(
    Object.entries(node).filter(([key]) => key !== '$id' && key !== '$schema' && !key.startsWith('~')),
  );
}

function scalarTypeOf(values: readonly unknown[], path: string): string {
  const types = new Set(
    values.map((v) => {
      if (typeof v === 'string' || typeof v === 'boolean') return typeof v;
      if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
      return fail(path, `enum value ${JSON.stringify(v)} is not a string, number or boolean`);
    }),
  );
  if (types.has('integer') && types.has('number')) types.delete('integer');
  const [only, ...others] = types;
  if (only === undefined || others.length > 0) {
    fail(path, `enum mixes value types (${[...types].join(', ')}); Kubernetes needs one type`);
  }
  return only;
}

/** Values of a branch that only names allowed values (`Type.Literal`, single-type `Type.Enum`), else undefined. */
function literalValues(branch: Node): unknown[] | undefined {
  if (!Object.keys(branch).every((key) => ['type', 'const', 'enum', 'description'].includes(key))) return undefined;
  if ('const' in branch) return [branch.const];
  return Array.isArray(branch.enum) ? branch.enum : undefined;
}

function isValidationOnly(branch: unknown): boolean {
  if (!isNode(branch)) return false;
  return Object.entries(withoutTypeBoxKeys(branch)).every(([key, value]) => {
    if (VALUE_VALIDATIONS.includes(key)) return true;
    if (key === 'not') return isValidationOnly(value);
    return JUNCTORS.includes(key) && Array.isArray(value) && value.every(isValidationOnly);
  });
}

const INT_OR_STRING_BRANCHES = [{ type: 'integer' }, { type: 'string' }];

/** Rewrites `anyOf`/`oneOf` over typed alternatives into the structural spellings above, or fails. */
function foldTypedUnion(node: Node, path: string): Node {
  for (const junctor of ['anyOf', 'oneOf'] as const) {
    const branches = node[junctor];
    if (!Array.isArray(branches) || branches.every(isValidationOnly)) continue;
    if (node['x-kubernetes-int-or-string'] === true) continue; // checked with the int-or-string rules below
    const { [junctor]: _union, ...outer } = node;
    const alternatives = branches.map((branch: unknown, index) =>
      isNode(branch) ? withoutTypeBoxKeys(branch) : fail(`${path} (${junctor}[${index}])`, 'is not a schema'),
    );
    const nonNull = alternatives.filter((b) => b.type !== 'null');
    const nullable = nonNull.length < alternatives.length ? { nullable: true } : {};
    const literals = nonNull.map(literalValues);
    const types = nonNull.map((b) => b.type);
    const [single, ...more] = nonNull;
    let folded: Node;
    if (single !== undefined && more.length === 0) {
      folded = single;
    } else if (literals.every((values) => values !== undefined)) {
      const values = literals.flat();
      folded = { type: scalarTypeOf(values, path), enum: values };
    } else if (
      nonNull.length === 2 &&
      types.includes('integer') &&
      types.includes('string') &&
      nonNull.every((b) => Object.keys(b).length === 1)
    ) {
      folded = { 'x-kubernetes-int-or-string': true, anyOf: INT_OR_STRING_BRANCHES };
    } else {
      fail(
        path,
        `${junctor} over typed alternatives is not a structural schema. Use one type with an enum (a union of ` +
          'literals), a union with Null (nullable), Integer|String (int-or-string), or one object with optional ' +
          'fields and a CEL rule (x-kubernetes-validations) for "exactly one of"',
      );
    }
    return { ...folded, ...outer, ...nullable };
  }
  return node;
}

function normalize(input: Node, path: string): Node {
  // Fold until stable: Union([Union([A, B]), Null]) needs two passes.
  let node = withoutTypeBoxKeys(input);
  for (let folded = foldTypedUnion(node, path); folded !== node; folded = foldTypedUnion(node, path)) node = folded;
  if ('const' in node) {
    const { const: value, ...rest } = node;
    node = { ...rest, enum: [value] };
  }
  if (Array.isArray(node.enum) && node.type === undefined) node = { type: scalarTypeOf(node.enum, path), ...node };
  if (isNode(node.patternProperties)) {
    const { patternProperties, ...rest } = node;
    const [entry, ...more] = Object.entries(patternProperties);
    if (entry === undefined || more.length > 0 || entry[0] !== '^.*$') {
      fail(path, 'patternProperties is not supported by Kubernetes; use Type.Record(Type.String(), …) for a map');
    }
    node = { ...rest, additionalProperties: entry[1] };
  }
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof node[exclusive] === 'number') node = { ...node, [bound]: node[exclusive], [exclusive]: true };
  }
  return node;
}

function checkCelRules(rules: unknown, path: string): void {
  if (!Array.isArray(rules)) fail(path, 'x-kubernetes-validations must be a list of {rule, message} objects');
  rules.forEach((rule: unknown, index) => {
    const at = `${path} (x-kubernetes-validations[${index}])`;
    if (!isNode(rule) || typeof rule.rule !== 'string' || rule.rule.trim() === '') fail(at, 'needs a non-empty "rule"');
    const unknownKey = Object.keys(rule).find((key) => !CEL_RULE_KEYS.includes(key));
    if (unknownKey !== undefined) fail(at, `unknown field "${unknownKey}" (allowed: ${CEL_RULE_KEYS.join(', ')})`);
  });
}

function checkListType(node: OpenApiSchema, path: string): void {
  const listType = node['x-kubernetes-list-type'];
  const mapKeys = node['x-kubernetes-list-map-keys'];
  if (listType === undefined && mapKeys === undefined) return;
  if (node.type !== 'array') fail(path, 'x-kubernetes-list-type applies to arrays only');
  if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    fail(path, `x-kubernetes-list-type must be atomic, set or map, not ${JSON.stringify(listType)}`);
  }
  const items = node.items;
  if (listType === 'set' && (items?.type === 'object' || items?.type === 'array')) {
    fail(path, 'x-kubernetes-list-type: set needs scalar items; use map (with map keys) for objects');
  }
  if (listType !== 'map') {
    if (mapKeys !== undefined) fail(path, 'x-kubernetes-list-map-keys needs x-kubernetes-list-type: map');
    return;
  }
  if (items?.type !== 'object') fail(path, 'x-kubernetes-list-type: map needs object items');
  if (!Array.isArray(mapKeys) || mapKeys.length === 0) {
    fail(path, 'x-kubernetes-list-type: map needs x-kubernetes-list-map-keys');
  }
  for (const key of mapKeys) {
    const field = typeof key === 'string' ? items.properties?.[key] : undefined;
    if (field === undefined) fail(path, `list map key ${JSON.stringify(key)} is not a property of the items`);
    // The API server's rule: a map key must always have a value, so it is required or defaulted.
    if (!(items.required?.includes(key as string) ?? false) && field.default === undefined) {
      fail(path, `list map key ${JSON.stringify(key)} must be required or have a default`);
    }
  }
}

/** Structural schemas allow logical junctors only as extra value checks, plus int-or-string's fixed anyOf. */
function checkJunctors(node: Node, intOrString: boolean, path: string): void {
  for (const junctor of JUNCTORS) {
    if (!(junctor in node)) continue;
    const value = node[junctor];
    if (junctor === 'anyOf' && intOrString && JSON.stringify(value) === JSON.stringify(INT_OR_STRING_BRANCHES)) continue;
    const validationOnly = junctor === 'not' ? isValidationOnly(value) : Array.isArray(value) && value.every(isValidationOnly);
    if (!validationOnly) {
      fail(
        path,
        `${junctor} may only hold value validations (enum, pattern, required, bounds …), not types, fields or ` +
          (junctor === 'allOf' ? 'defaults; flatten an intersection with Type.Evaluate(Type.Intersect([…]))' : 'defaults'),
      );
    }
  }
}

function convertNode(input: unknown, path: string): OpenApiSchema {
  if (!isNode(input)) fail(path, 'is not a schema object');
  const node = normalize(input, path);
  const unknownKey = Object.keys(node).find((key) => !NODE_KEYWORDS.includes(key));
  if (unknownKey !== undefined) {
    fail(path, `"${unknownKey}" is not supported in a CustomResourceDefinition schema`);
  }
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const preserveUnknown = node['x-kubernetes-preserve-unknown-fields'] === true;
  checkJunctors(node, intOrString, path);
  if ('x-kubernetes-validations' in node) checkCelRules(node['x-kubernetes-validations'], path);
  if (node.type === undefined) {
    if (!intOrString && !preserveUnknown) {
      fail(path, 'has no type; give it one, or mark it x-kubernetes-preserve-unknown-fields: true for free-form data');
    }
  } else if (typeof node.type !== 'string' || !TYPES.includes(node.type)) {
    fail(path, `type ${JSON.stringify(node.type)} is not one of ${TYPES.join(', ')}`);
  }

  const out: OpenApiSchema = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'properties': {
        if (!isNode(value)) fail(path, 'properties must be an object');
        out.properties = Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, convertNode(child, `${path}.${name}`)]),
        );
        break;
      }
      case 'additionalProperties': {
        if (typeof value === 'boolean') {
          fail(
            path,
            'additionalProperties must be a schema: the API server prunes unknown fields by itself; for a free-form ' +
              'object use x-kubernetes-preserve-unknown-fields: true',
          );
        }
        if ('properties' in node) fail(path, 'properties and additionalProperties cannot be used together');
        out.additionalProperties = convertNode(value, `${path}.*`);
        break;
      }
      case 'items': {
        if (Array.isArray(value)) fail(path, 'tuples (positional items) are not supported; use one item schema');
        out.items = convertNode(value, `${path}[*]`);
        break;
      }
      case 'uniqueItems': {
        if (value === true) fail(path, 'uniqueItems: true is forbidden by Kubernetes; use x-kubernetes-list-type: set');
        break;
      }
      default:
        out[key] = structuredClone(value);
    }
  }
  if (out.type === 'array' && out.items === undefined) fail(path, 'an array needs an item schema');
  checkListType(out, path);
  return out;
}

/**
 * The structural form of `schema`, placed at `path` (e.g. `.spec`) for error messages. Throws
 * {@link NonStructuralSchemaError} naming the path of the first problem.
 */
export function toStructuralSchema(schema: TSchema, path: string): OpenApiSchema {
  return convertNode(schema, path);
}
