import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineCustomResource, type CustomResourceVersion } from './define-custom-resource.ts';

const spec = Type.Object({ size: Type.Integer() });

function define(overrides: Partial<Parameters<typeof defineCustomResource>[0]> = {}) {
  return () =>
    defineCustomResource({
      group: 'shapes.example.com',
      kind: 'Shape',
      plural: 'shapes',
      scope: 'Namespaced',
      versions: [{ name: 'v1', spec }],
      ...overrides,
    });
}

describe('defineCustomResource', () => {
  it('fills in the defaults kubebuilder would', () => {
    const shape = define()();
    expect(shape).toMatchObject({
      singular: 'shape',
      listKind: 'ShapeList',
      shortNames: [],
      categories: [],
      description: 'Shape is the Schema for the shapes API.',
      storageVersion: 'v1',
      apiVersion: 'shapes.example.com/v1',
    });
    expect(Object.isFrozen(shape)).toBe(true);
  });

  it('names the resource, version and path of a non-structural schema', () => {
    const bad = Type.Object({ blob: Type.Unknown() });
    expect(define({ versions: [{ name: 'v1', spec: bad }] })).toThrow(
      /^defineCustomResource\(Shape\): version v1: \.spec\.blob: has no type/,
    );
    expect(define({ versions: [{ name: 'v1', spec, status: bad }] })).toThrow(/version v1: \.status\.blob: has no type/);
  });

  it.each([
    [{ kind: 'shape' }, /kind must be CamelCase/],
    [{ group: 'shapes' }, /group "shapes" must be a lowercase DNS name with at least one dot/],
    [{ plural: 'Shapes' }, /plural "Shapes" must be a lowercase DNS label/],
    [{ shortNames: ['s h'] }, /short name "s h"/],
    [{ categories: ['shape'] }, /category "shape" is also a name of the kind, which kubectl would no longer resolve: rename the category/],
    [{ shortNames: ['sh'], categories: ['all', 'sh'] }, /category "sh" is also a name of the kind/],
    [{ versions: [] }, /needs at least one version/],
    [{ versions: [{ name: 'V1', spec }] }, /version "V1" must be a DNS label/],
    [{ versions: [{ name: 'v1', spec }, { name: 'v1', spec, storage: true }] }, /version v1 is declared twice/],
    [{ versions: [{ name: 'v1', spec }, { name: 'v2', spec }] }, /exactly one version must have storage: true \(found 0\)/],
    [
      { versions: [{ name: 'v1', spec, storage: true }, { name: 'v2', spec, storage: true }] },
      /exactly one version must have storage: true \(found 2\)/,
    ],
    [{ versions: [{ name: 'v1', spec, served: false }] }, /the storage version v1 must be served/],
    [
      { versions: [{ name: 'v1', spec, printerColumns: [{ name: 'Size', type: 'integer', jsonPath: 'spec.size' }] }] },
      /printer column Size \(v1\): jsonPath must start with '\.'/,
    ],
  ] as [Partial<Parameters<typeof defineCustomResource>[0]>, RegExp][])('rejects %o', (overrides, message) => {
    expect(define(overrides)).toThrow(message);
  });

  it('refuses served versions with different schemas, since nothing converts between them', () => {
    const old: CustomResourceVersion = { name: 'v1alpha1', spec: Type.Object({ size: Type.String() }) };
    const current: CustomResourceVersion = { name: 'v1', spec, storage: true };
    expect(define({ versions: [old, current] })).toThrow(/versions v1alpha1 and v1 have different schemas/);
    expect(define({ versions: [{ ...old, served: false }, current] })).not.toThrow();
  });
});
