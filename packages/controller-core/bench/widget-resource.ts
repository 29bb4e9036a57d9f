import { Type } from 'typebox';
import { conditionsSchema, customResourceRef, defineCustomResource, type CustomResource } from '@k8s-operators/controller-core';

/** The benchmark's custom resource: a small spec the controller copies into an owned ConfigMap. */
export const WidgetResource = defineCustomResource({
  group: 'bench.k8s-operators.io',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1',
      spec: Type.Object({ size: Type.Integer({ minimum: 0 }), color: Type.String() }),
      status: Type.Object({
        observedGeneration: Type.Optional(Type.Integer()),
        conditions: Type.Optional(conditionsSchema()),
      }),
    },
  ],
});

export type Widget = CustomResource<typeof WidgetResource>;

export const WidgetRef = customResourceRef(WidgetResource);
