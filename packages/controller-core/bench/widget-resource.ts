import { Type } from 'typebox';
import { defineCustomResource, type CustomResource } from '@k8s-operators/controller-core';
import { conditionsSchema } from '@k8s-operators/controller-core/crd';
import { WIDGET } from './widget-ref.ts';

/** The benchmark's custom resource: a small spec the controller copies into an owned ConfigMap. */
export const WidgetResource = defineCustomResource({
  group: WIDGET.group,
  kind: WIDGET.kind,
  plural: WIDGET.plural,
  scope: 'Namespaced',
  versions: [
    {
      name: WIDGET.version,
      spec: Type.Object({ size: Type.Integer({ minimum: 0 }), color: Type.String() }),
      status: Type.Object({
        observedGeneration: Type.Optional(Type.Integer()),
        conditions: Type.Optional(conditionsSchema()),
      }),
    },
  ],
});

export type Widget = CustomResource<typeof WidgetResource>;
