import { Type, type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { NonStructuralSchemaError, toStructuralSchema } from './structural-schema.ts';

const reject = (schema: TSchema) => () => toStructuralSchema(schema, '.spec');

describe('toStructuralSchema', () => {
  it('drops TypeBox bookkeeping and keeps Kubernetes keywords', () => {
    const schema = Type.Object(
      { name: Type.String({ $id: 'Name', pattern: '^[a-z]+$', maxLength: 63, format: 'hostname', title: 'Name' }) },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', minProperties: 1, 'x-kubernetes-map-type': 'atomic' },
    );
    expect(toStructuralSchema(schema, '.spec')).toEqual({
      type: 'object',
      required: ['name'],
      minProperties: 1,
      'x-kubernetes-map-type': 'atomic',
      properties: { name: { type: 'string', pattern: '^[a-z]+$', maxLength: 63, format: 'hostname', title: 'Name' } },
    });
  });

  it('folds a nullable union of literals into a nullable enum', () => {
    const schema = Type.Union([Type.Literal(1), Type.Literal(2), Type.Null()], { default: 1 });
    expect(toStructuralSchema(schema, '.spec.level')).toEqual({ type: 'integer', enum: [1, 2], default: 1, nullable: true });
  });

  it('keeps logical junctors that only validate values', () => {
    const schema = Type.Object(
      { a: Type.Optional(Type.String()), b: Type.Optional(Type.String()) },
      { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    );
    expect(toStructuralSchema(schema, '.spec').oneOf).toEqual([{ required: ['a'] }, { required: ['b'] }]);
  });

  it('accepts free-form subtrees only when marked to preserve unknown fields', () => {
    expect(toStructuralSchema(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true }), '.spec')).toEqual({
      type: 'object',
      properties: {},
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it.each([
    [
      'a union of object types',
      Type.Object({ target: Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]) }),
      /^\.spec\.target: anyOf over typed alternatives is not a structural schema/,
    ],
    ['a field without a type', Type.Object({ data: Type.Unknown() }), /^\.spec\.data: has no type; .*x-kubernetes-preserve-unknown-fields/],
    ['Type.Any deep in an array', Type.Object({ ports: Type.Array(Type.Object({ extra: Type.Any() })) }), /^\.spec\.ports\[\*\]\.extra: has no type/],
    [
      'additionalProperties next to properties',
      Type.Object({ a: Type.String() }, { additionalProperties: Type.String() }),
      /^\.spec: properties and additionalProperties cannot be used together/,
    ],
    [
      'additionalProperties: false',
      Type.Object({ a: Type.String() }, { additionalProperties: false }),
      /^\.spec: additionalProperties must be a schema: the API server prunes unknown fields/,
    ],
    ['a map of untyped values', Type.Object({ labels: Type.Record(Type.String(), Type.Unknown()) }), /^\.spec\.labels\.\*: has no type/],
    [
      'an intersection',
      Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
      /^\.spec: allOf may only hold value validations.*Type\.Evaluate/,
    ],
    ['a $ref', Type.Object({ a: Type.Ref('Other') }), /^\.spec\.a: "\$ref" is not supported/],
    ['a tuple', Type.Object({ pair: Type.Tuple([Type.String(), Type.Integer()]) }), /^\.spec\.pair: "additionalItems" is not supported/],
    ['uniqueItems', Type.Object({ tags: Type.Array(Type.String(), { uniqueItems: true }) }), /^\.spec\.tags: uniqueItems: true is forbidden.*list-type: set/],
    ['a non-wildcard record key', Type.Object({ m: Type.Record(Type.TemplateLiteral('x-${string}'), Type.String()) }), /^\.spec\.m: patternProperties is not supported/],
    ['an enum of mixed types', Type.Object({ e: Type.Enum(['a', 1]) }), /^\.spec\.e: enum mixes value types \(string, integer\)/],
    ['null alone', Type.Object({ n: Type.Null() }), /^\.spec\.n: type "null" is not one of/],
    [
      'a list map key that may be absent',
      Type.Object({
        ports: Type.Array(Type.Object({ name: Type.Optional(Type.String()) }), {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        }),
      }),
      /^\.spec\.ports: list map key "name" must be required or have a default/,
    ],
    [
      'a set of objects',
      Type.Object({ s: Type.Array(Type.Object({ a: Type.String() }), { 'x-kubernetes-list-type': 'set' }) }),
      /^\.spec\.s: x-kubernetes-list-type: set needs scalar items/,
    ],
    [
      'a CEL rule without a rule',
      Type.Object({ a: Type.String({ 'x-kubernetes-validations': [{ message: 'oops' }] }) }),
      /^\.spec\.a \(x-kubernetes-validations\[0\]\): needs a non-empty "rule"/,
    ],
    ['a JSON Schema keyword Kubernetes lacks', Type.Object({ a: Type.String({ examples: ['x'] }) }), /^\.spec\.a: "examples" is not supported/],
  ])('rejects %s, naming the path', (_what, schema, message) => {
    expect(reject(schema)).toThrow(NonStructuralSchemaError);
    expect(reject(schema)).toThrow(message);
  });
});
