import type { KubeClient, ReconcileContext, ReconcileResult } from '@k8s-operators/controller-core';
import type { AhvVmMetrics } from '../metrics/ahvvm-metrics.ts';
import type { PrismVmApi } from '../vm/prism-vm-api.ts';
import type { AhvVmReporter } from './ahvvm-reporter.ts';
import type { AhvVmScope } from './ahvvm-scope.ts';
import type { EntityNameCache } from './entity-name-cache.ts';
import type { PrismConnection } from './prism-connection.ts';
import type { RequeueTiming } from './requeue-timing.ts';

export type Result = ReconcileResult | undefined;
export type ConnectedPrism = Extract<PrismConnection, { configured: true }>;

/** What the phases of a reconcile (finalize, create, sync) share; AhvVmReconciler makes them once per process. */
export interface PhaseDeps {
  kube: Pick<KubeClient, 'patch' | 'get'>;
  report: AhvVmReporter;
  requeue: RequeueTiming;
  metrics: AhvVmMetrics;
  /** Undefined without a Prism connection, when no phase runs. */
  names: EntityNameCache | undefined;
}

/** One reconcile of one AhvVm with Prism connected: what each phase works on. */
export interface PhaseRun {
  scope: AhvVmScope;
  prism: ConnectedPrism;
  api: PrismVmApi;
  ctx: ReconcileContext;
}
