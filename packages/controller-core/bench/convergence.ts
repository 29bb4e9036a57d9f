import {
  READY_CONDITION,
  Resources,
  getControllerOf,
  isStatusConditionTrue,
  objectKey,
  type Manager,
} from '@k8s-operators/controller-core';
import { WidgetRef } from './widget-ref.ts';

/**
 * Watches the controller's own caches for the end state: every Widget `Ready=True` and every Widget's ConfigMap
 * present. It listens to informer events, so it costs no request and sees what the API server confirmed.
 */
export class Convergence {
  /** Resolves once `expected` Widgets are ready and `expected` ConfigMaps are owned by Widgets. */
  readonly reached: Promise<undefined>;
  readonly #ready = new Set<string>();
  readonly #configMaps = new Set<string>();

  constructor(manager: Manager, expected: number) {
    const { promise, resolve } = Promise.withResolvers<undefined>();
    this.reached = promise;
    const track = (set: Set<string>, key: string, member: boolean): void => {
      if (member) set.add(key);
      else set.delete(key);
      if (this.#ready.size >= expected && this.#configMaps.size >= expected) resolve(undefined);
    };
    manager.informerFor(WidgetRef).addEventHandler({
      onAdd: (widget) => { track(this.#ready, objectKey(widget), isStatusConditionTrue(widget.status?.conditions, READY_CONDITION)); },
      onUpdate: (_, widget) => { track(this.#ready, objectKey(widget), isStatusConditionTrue(widget.status?.conditions, READY_CONDITION)); },
      onDelete: (widget) => { track(this.#ready, objectKey(widget), false); },
    });
    manager.informerFor(Resources.ConfigMap).addEventHandler({
      onAdd: (configMap) => { track(this.#configMaps, objectKey(configMap), getControllerOf(configMap)?.kind === WidgetRef.kind); },
      onUpdate: (_, configMap) => { track(this.#configMaps, objectKey(configMap), getControllerOf(configMap)?.kind === WidgetRef.kind); },
      onDelete: (configMap) => { track(this.#configMaps, objectKey(configMap), false); },
    });
  }

  get ready(): number {
    return this.#ready.size;
  }

  get configMaps(): number {
    return this.#configMaps.size;
  }
}
