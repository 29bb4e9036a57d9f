import {
  asReconciler,
  generationChanged,
  or,
  type Controller,
  type Manager,
  type Predicate,
} from '@k8s-operators/controller-core';
import { AhvVmRef } from '../api/ahvvm-ref.ts';
import type { AhvVmMetrics } from '../metrics/ahvvm-metrics.ts';
import { AhvVmReconciler, FIELD_MANAGER } from './ahvvm-reconciler.ts';
import { REQUEUE_BACKOFFS, type ReconcileIntervals } from './requeue-timing.ts';
import type { PrismAccessGate } from './prism-access-gate.ts';
import type { PrismConnection } from './prism-connection.ts';

export interface AhvVmControllerOptions {
  prism: PrismConnection;
  /** Registered on the manager's registry (`registerAhvVmMetrics(manager.metrics.registry)`), shared with the client. */
  metrics: AhvVmMetrics;
  /** AhvVms reconciled at once (default 10). Prism requests are bounded separately, by the client. */
  maxConcurrentReconciles?: number;
  intervals?: Partial<ReconcileIntervals>;
  /** Tests pass a gate with their own delays. */
  gate?: PrismAccessGate;
}

/**
 * Spec changes (a new generation) and the start of a deletion queue a reconcile; the operator's own status writes do
 * not. Everything Prism does is seen by requeueing: task polls, and the periodic drift check.
 */
function deletionRequested(): Predicate {
  return { update: (oldObj, newObj) => oldObj.metadata?.deletionTimestamp === undefined && newObj.metadata?.deletionTimestamp !== undefined };
}

/** Who reports the operator's Events. */
export const REPORTING_CONTROLLER = 'nutanix.com/ahvvm-operator';

/** Registers the AhvVm controller on `manager`. */
export function setupAhvVmController(manager: Manager, options: AhvVmControllerOptions): Controller {
  const events = manager.eventRecorderFor(REPORTING_CONTROLLER);
  const reconciler = new AhvVmReconciler({
    kube: manager.client,
    statusWriter: manager.statusWriter(FIELD_MANAGER),
    prism: options.prism,
    events,
    metrics: options.metrics,
    ...(options.intervals === undefined ? {} : { intervals: options.intervals }),
    ...(options.gate === undefined ? {} : { gate: options.gate }),
  });
  return manager
    .controller('ahvvm')
    .for(AhvVmRef, { predicates: [or(generationChanged(), deletionRequested())] })
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 10, requeueBackoffs: REQUEUE_BACKOFFS })
    .complete(asReconciler(manager.reader, AhvVmRef, reconciler));
}
