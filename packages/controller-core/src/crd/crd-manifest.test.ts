import { Type } from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Condition } from '../conditions.ts';
import { conditionsSchema } from './conditions-schema.ts';
import { crdManifest } from './crd-manifest.ts';
import {
  defineCustomResource,
  type CustomResource,
  type CustomResourceSpec,
  type CustomResourceStatus,
} from './define-custom-resource.ts';
import { AGE_COLUMN, READY_COLUMN, REASON_COLUMN } from './printer-columns.ts';

const WidgetSpec = Type.Object(
  {
    mode: Type.Union([Type.Literal('app'), Type.Literal('maintenance')], {
      default: 'app',
      description: 'Where traffic goes.',
    }),
    replicas: Type.Integer({ minimum: 0, maximum: 10, default: 1 }),
    image: Type.String({
      minLength: 1,
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'image is immutable' }],
    }),
    port: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    selector: Type.Record(Type.String(), Type.String()),
    ports: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), port: Type.Integer({ minimum: 1, maximum: 65535 }) }), {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
    note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    extra: Type.Optional(Type.Unknown({ 'x-kubernetes-preserve-unknown-fields': true })),
    weight: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  {
    'x-kubernetes-validations': [
      { rule: "self.mode != 'maintenance' || self.replicas > 0", message: 'maintenance needs at least one replica' },
    ],
  },
);

const WidgetStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  phase: Type.Optional(Type.Enum(['Serving', 'Switching'])),
  conditions: Type.Optional(conditionsSchema()),
});

const WidgetResource = defineCustomResource({
  group: 'widgets.example.com',
  kind: 'Widget',
  plural: 'widgets',
  shortNames: ['wd'],
  categories: ['example'],
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1alpha1',
      spec: WidgetSpec,
      status: WidgetStatus,
      printerColumns: [READY_COLUMN, { name: 'Mode', type: 'string', jsonPath: '.spec.mode' }, REASON_COLUMN, AGE_COLUMN],
    },
  ],
});

/** metav1.Condition as controller-gen writes it for the kubebuilder scaffold. */
const CONDITION_ITEM = {
  description: 'Condition contains details for one aspect of the current state of this API Resource.',
  properties: {
    lastTransitionTime: {
      description:
        'lastTransitionTime is the last time the condition transitioned from one status to another.\nThis should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.',
      format: 'date-time',
      type: 'string',
    },
    message: {
      description: 'message is a human readable message indicating details about the transition.\nThis may be an empty string.',
      maxLength: 32768,
      type: 'string',
    },
    observedGeneration: {
      description:
        'observedGeneration represents the .metadata.generation that the condition was set based upon.\nFor instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date\nwith respect to the current state of the instance.',
      format: 'int64',
      minimum: 0,
      type: 'integer',
    },
    reason: {
      description:
        "reason contains a programmatic identifier indicating the reason for the condition's last transition.\nProducers of specific condition types may define expected values and meanings for this field,\nand whether the values are considered a guaranteed API.\nThe value should be a CamelCase string.\nThis field may not be empty.",
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      type: 'string',
    },
    status: {
      description: 'status of the condition, one of True, False, Unknown.',
      enum: ['True', 'False', 'Unknown'],
      type: 'string',
    },
    type: {
      description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      type: 'string',
    },
  },
  required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  type: 'object',
};

describe('crdManifest', () => {
  it('generates the CustomResourceDefinition of a declared resource', () => {
    expect(crdManifest(WidgetResource)).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.widgets.example.com' },
      spec: {
        group: 'widgets.example.com',
        names: {
          kind: 'Widget',
          listKind: 'WidgetList',
          plural: 'widgets',
          singular: 'widget',
          shortNames: ['wd'],
          categories: ['example'],
        },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                description: 'Widget is the Schema for the widgets API.',
                type: 'object',
                required: ['spec'],
                properties: {
                  apiVersion: {
                    description:
                      'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
                    type: 'string',
                  },
                  kind: {
                    description:
                      'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
                    type: 'string',
                  },
                  metadata: { type: 'object' },
                  spec: {
                    type: 'object',
                    required: ['mode', 'replicas', 'image', 'selector'],
                    'x-kubernetes-validations': [
                      {
                        rule: "self.mode != 'maintenance' || self.replicas > 0",
                        message: 'maintenance needs at least one replica',
                      },
                    ],
                    properties: {
                      mode: { type: 'string', enum: ['app', 'maintenance'], default: 'app', description: 'Where traffic goes.' },
                      replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
                      image: {
                        type: 'string',
                        minLength: 1,
                        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'image is immutable' }],
                      },
                      port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                      selector: { type: 'object', additionalProperties: { type: 'string' } },
                      ports: {
                        type: 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['name'],
                        items: {
                          type: 'object',
                          required: ['name', 'port'],
                          properties: {
                            name: { type: 'string' },
                            port: { type: 'integer', minimum: 1, maximum: 65535 },
                          },
                        },
                      },
                      note: { type: 'string', nullable: true },
                      extra: { 'x-kubernetes-preserve-unknown-fields': true },
                      weight: { type: 'number', minimum: 0, exclusiveMinimum: true },
                    },
                  },
                  status: {
                    type: 'object',
                    properties: {
                      observedGeneration: { type: 'integer', format: 'int64' },
                      phase: { type: 'string', enum: ['Serving', 'Switching'] },
                      conditions: {
                        description:
                          'conditions represent the current state of the resource.\nEach condition has a unique type and reflects the status of a specific aspect of the resource.\n\nStandard condition types include:\n- "Ready": the resource is fully functional; it comes first and summarises the others\n- "Progressing": the resource is being created or updated\n- "Degraded": the resource failed to reach or maintain its desired state\n\nThe status of each condition is one of True, False, or Unknown.',
                        type: 'array',
                        items: CONDITION_ITEM,
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['type'],
                      },
                    },
                  },
                },
              },
            },
            subresources: { status: {} },
            additionalPrinterColumns: [
              { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
              { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
              { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', priority: 1 },
              { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
            ],
          },
        ],
      },
    });
  });

  it('leaves out the status subresource, names and columns that were not declared', () => {
    const Plain = defineCustomResource({
      group: 'plain.example.com',
      kind: 'Plain',
      plural: 'plains',
      scope: 'Cluster',
      versions: [{ name: 'v1', spec: Type.Object({ size: Type.Integer() }) }],
    });
    const [version] = crdManifest(Plain).spec.versions;
    expect(crdManifest(Plain).spec.names).toEqual({ kind: 'Plain', listKind: 'PlainList', plural: 'plains', singular: 'plain' });
    expect(version).not.toHaveProperty('subresources');
    expect(version).not.toHaveProperty('additionalPrinterColumns');
    expect(version?.schema.openAPIV3Schema.properties).not.toHaveProperty('status');
  });

  it('returns a fresh object each time', () => {
    const first = crdManifest(WidgetResource);
    first.spec.versions[0]?.schema.openAPIV3Schema.required?.push('mutated');
    expect(crdManifest(WidgetResource).spec.versions[0]?.schema.openAPIV3Schema.required).toEqual(['spec']);
  });

  it('marks deprecated versions and the one storage version', () => {
    const spec = Type.Object({ size: Type.Integer() });
    const Multi = defineCustomResource({
      group: 'multi.example.com',
      kind: 'Multi',
      plural: 'multis',
      scope: 'Namespaced',
      versions: [
        { name: 'v1alpha1', spec, deprecated: true, deprecationWarning: 'multi.example.com/v1alpha1 is deprecated; use v1' },
        { name: 'v1', spec, storage: true },
      ],
    });
    expect(crdManifest(Multi).spec.versions.map(({ name, served, storage, deprecated, deprecationWarning }) => ({
      name,
      served,
      storage,
      deprecated,
      deprecationWarning,
    }))).toEqual([
      { name: 'v1alpha1', served: true, storage: false, deprecated: true, deprecationWarning: 'multi.example.com/v1alpha1 is deprecated; use v1' },
      { name: 'v1', served: true, storage: true, deprecated: undefined, deprecationWarning: undefined },
    ]);
    expect(Multi.apiVersion).toBe('multi.example.com/v1');
  });
});

describe('CustomResource typing', () => {
  type Widget = CustomResource<typeof WidgetResource>;

  it('derives apiVersion, kind, spec and status types from the declaration', () => {
    expectTypeOf<Widget['apiVersion']>().toEqualTypeOf<'widgets.example.com/v1alpha1'>();
    expectTypeOf<Widget['kind']>().toEqualTypeOf<'Widget'>();
    expectTypeOf<Widget['spec']['mode']>().toEqualTypeOf<'app' | 'maintenance'>();
    expectTypeOf<Widget['spec']['replicas']>().toEqualTypeOf<number>();
    expectTypeOf<Widget['spec']['port']>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<Widget['spec']['selector']>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<Widget['status']>().toEqualTypeOf<CustomResourceStatus<typeof WidgetResource> | undefined>();
    expectTypeOf<CustomResourceSpec<typeof WidgetResource>>().toEqualTypeOf<Widget['spec']>();
    expectTypeOf<NonNullable<NonNullable<Widget['status']>['conditions']>>().toExtend<Condition[]>();
    expect(WidgetResource.apiVersion).toBe('widgets.example.com/v1alpha1');
    expect(WidgetResource.storageVersion).toBe('v1alpha1');
  });

  it('types another served version by name', () => {
    const Multi = defineCustomResource({
      group: 'multi.example.com',
      kind: 'Multi',
      plural: 'multis',
      scope: 'Namespaced',
      versions: [
        { name: 'v1beta1', spec: Type.Object({ size: Type.Integer() }), served: false },
        { name: 'v1', spec: Type.Object({ size: Type.Integer() }), status: Type.Object({ ok: Type.Boolean() }), storage: true },
      ],
    });
    expectTypeOf<CustomResource<typeof Multi>['apiVersion']>().toEqualTypeOf<'multi.example.com/v1'>();
    expectTypeOf<CustomResource<typeof Multi, 'v1beta1'>['apiVersion']>().toEqualTypeOf<'multi.example.com/v1beta1'>();
    expectTypeOf<CustomResource<typeof Multi>>().toHaveProperty('status');
    expectTypeOf<CustomResourceStatus<typeof Multi, 'v1beta1'>>().toBeNever();
    expect(Multi.storageVersion).toBe('v1');
  });
});
