import { setTimeout as sleep } from 'node:timers/promises';
import {
  READY_CONDITION,
  Resources,
  type ApplyConfiguration,
  type Manager,
  type ObjectOf,
} from '@k8s-operators/controller-core';
import { WidgetRef } from './widget-ref.ts';
import type { Widget } from './widget-resource.ts';

type ConfigMap = ObjectOf<typeof Resources.ConfigMap>;

const FIELD_MANAGER = 'core-bench';

/** Counted by the reconciler itself, so the benchmark reads them without asking the API server. */
export interface ReconcileCounts {
  reconciles: number;
  /** Reconciles that threw; each is retried. */
  errors: number;
  /** ConfigMap applies sent (not skipped because the cache already matched). */
  configMapApplies: number;
  /** Status writes sent (not skipped because the status was already as computed). */
  readonly statusWrites: number;
}

/** The ConfigMap a Widget owns: same name and namespace, the spec as data. */
function desiredConfigMap(widget: Widget): ApplyConfiguration<ConfigMap> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: widget.metadata.name ?? '', namespace: widget.metadata.namespace ?? '' },
    data: { size: String(widget.spec.size), color: widget.spec.color },
  };
}

export interface WidgetControllerOptions {
  workers: number;
  /** See ControllerSettings (default true). */
  usePriorityQueue?: boolean;
  /**
   * Milliseconds each reconcile waits before its work, standing for the call to an external system most operators make
   * (a Prism GET, a database query), so a backlog takes as long to drain as a real operator's. Default 0.
   */
  externalCallMs?: number;
  /** Called as each reconcile of an existing Widget starts, with the Widget as the cache holds it then. */
  onReconcileStart?: (widget: Widget) => void;
}

/**
 * The controller under test: for each Widget, server-side apply its ConfigMap (skipped when the cache already shows
 * it) and set `Ready=True` (written only when it changes). Both reads come from the manager's caches, so a reconcile
 * that finds everything in place sends no request at all.
 */
export function registerWidgetController(manager: Manager, options: WidgetControllerOptions): ReconcileCounts {
  const { workers, usePriorityQueue = true, externalCallMs = 0, onReconcileStart } = options;
  // The manager's scope: the very caches (and watches) the controller's events come from.
  const widgets = manager.informerFor(WidgetRef);
  const statusWriter = manager.statusWriter(FIELD_MANAGER);
  const counts: ReconcileCounts = {
    reconciles: 0,
    errors: 0,
    configMapApplies: 0,
    get statusWrites() {
      return statusWriter.writes;
    },
  };

  manager
    .controller('bench')
    .for(WidgetRef)
    .owns(Resources.ConfigMap)
    .withOptions({ maxConcurrentReconciles: workers, usePriorityQueue })
    .complete(async ({ request }) => {
      counts.reconciles++;
      const widget = widgets.cache.get(request.key);
      // Deleted: the garbage collector deletes its ConfigMap through the owner reference.
      if (widget === undefined) return undefined;
      onReconcileStart?.(widget);
      if (externalCallMs > 0) await sleep(externalCallMs);
      try {
        // Through the manager's reader and applyOwned, so a reconcile that runs before the watch has delivered the
        // ConfigMap it just applied reads what it applied instead of nothing.
        const current = await manager.reader.get(Resources.ConfigMap, { namespace: widget.metadata.namespace ?? '', name: widget.metadata.name ?? '' });
        const applied = await manager.applyOwned(Resources.ConfigMap, desiredConfigMap(widget), {
          owner: widget,
          fieldManager: FIELD_MANAGER,
          current,
        });
        // applyOwned hands back the cached object itself when it sent nothing.
        if (applied !== current) counts.configMapApplies++;
        await statusWriter.writeConditions(WidgetRef, widget, {
          observedGeneration: widget.metadata.generation,
          conditions: [{ type: READY_CONDITION, status: 'True', reason: 'ConfigMapApplied', message: 'the ConfigMap holds the spec' }],
        });
      } catch (error) {
        counts.errors++;
        throw error;
      }
      return undefined;
    });
  return counts;
}
