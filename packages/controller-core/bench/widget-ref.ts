import { defineResource } from '@k8s-operators/controller-core';
import type { Widget } from './widget-resource.ts';

/**
 * The Widget's API coordinates, and its ResourceRef for the controller. Kept apart from the TypeBox schema in
 * widget-resource.ts so the controller process loads no schema code, as an operator's runtime should not.
 */
export const WIDGET = { group: 'bench.k8s-operators.io', version: 'v1', kind: 'Widget', plural: 'widgets' } as const;

export const WidgetRef = defineResource<Widget>({
  group: WIDGET.group,
  version: WIDGET.version,
  resource: WIDGET.plural,
  kind: WIDGET.kind,
  namespaced: true,
});
