import { collectDefaultMetrics, Registry, type Counter, type Gauge, type Histogram } from 'prom-client';
import { RECONCILE_TIME_BUCKETS, REST_CLIENT_DURATION_BUCKETS } from './buckets.ts';
import { registerInformerMetrics, type InformerMetrics } from './informer-metrics.ts';
import { metricsOn } from './metric-definitions.ts';
import {
  registerWorkQueueMetrics,
  type WorkQueueMetrics,
  type WorkQueueMetricsProvider,
  type WorkQueueState,
} from './workqueue-metrics.ts';

/** Values of the `result` label of `controller_runtime_reconcile_total`, as in controller-runtime. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/**
 * Every metric controller-core exports, as typed prom-client handles. Names, help texts, label names and buckets are
 * controller-runtime's (v0.24's metrics packages), so its Grafana dashboards and alerts work unchanged.
 */
export interface ControllerCoreMetrics extends WorkQueueMetricsProvider {
  readonly registry: Registry;

  /** `controller_runtime_reconcile_total{controller,result}`. */
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  /** `controller_runtime_reconcile_errors_total{controller}`: every failed reconcile, terminal or thrown ones included. */
  readonly reconcileErrors: Counter<'controller'>;
  /** `controller_runtime_terminal_reconcile_errors_total{controller}`: failures that are not retried. */
  readonly terminalReconcileErrors: Counter<'controller'>;
  /**
   * `controller_runtime_reconcile_panics_total{controller}`. A JavaScript reconciler has no panics; its nearest kin is an
   * exception thrown out of the reconcile function (a bug, as opposed to a failure it reports through its result), so
   * that is what this counts. As with a recovered Go panic, the reconcile also counts as an error and is retried.
   */
  readonly reconcilePanics: Counter<'controller'>;
  /** `controller_runtime_reconcile_timeouts_total{controller}`: reconciles cut off by the reconcile timeout. */
  readonly reconcileTimeouts: Counter<'controller'>;
  /** `controller_runtime_reconcile_time_seconds{controller}`. */
  readonly reconcileTime: Histogram<'controller'>;
  /** `controller_runtime_max_concurrent_reconciles{controller}`. */
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  /** `controller_runtime_active_workers{controller}`. */
  readonly activeWorkers: Gauge<'controller'>;

  /** `rest_client_requests_total{code,method,host}`; `code` is the HTTP status, or `<error>` when none came back. */
  readonly restClientRequests: Counter<'code' | 'method' | 'host'>;
  /** `rest_client_request_duration_seconds{verb,host}`. */
  readonly restClientRequestDuration: Histogram<'verb' | 'host'>;
  /** `rest_client_request_retries_total{code,verb,host}`. */
  readonly restClientRequestRetries: Counter<'code' | 'verb' | 'host'>;

  /** `leader_election_master_status{name}`: 1 while this process holds the lease named `name`, else 0. */
  readonly leaderElectionMasterStatus: Gauge<'name'>;
  readonly leadershipLost: Counter<'name'>;

  /** Our watch-liveness metrics. */
  readonly informers: InformerMetrics;

  /**
   * Creates a controller's series with their starting values, as controller-runtime's `initMetrics` does when a
   * controller starts, so dashboards and `rate()` see zeros rather than missing series.
   */
  initController(controller: string, options: { maxConcurrentReconciles: number }): void;
}

/**
 * Registers all metrics, plus prom-client's default process and Node.js collectors (controller-runtime registers the
 * process and Go collectors), on `registry`. Call once per registry; default: a fresh one, as controller-runtime keeps
 * its own rather than the global.
 */
export function createMetrics(registry: Registry = new Registry()): ControllerCoreMetrics {
  collectDefaultMetrics({ register: registry });
  const workQueues = registerWorkQueueMetrics(registry);
  const define = metricsOn(registry);
  // controller-runtime's reconcile metrics are all per controller, with no other label.
  const perController = ['controller'] as const;

  const reconcileTotal = define.counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']);
  const reconcileErrors = define.counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', perController);
  const terminalReconcileErrors = define.counter('controller_runtime_terminal_reconcile_errors_total', 'Total number of terminal reconciliation errors per controller', perController);
  const reconcilePanics = define.counter('controller_runtime_reconcile_panics_total', 'Total number of reconciliation panics per controller', perController);
  const reconcileTimeouts = define.counter('controller_runtime_reconcile_timeouts_total', 'Total number of reconciliation timeouts per controller', perController);
  const reconcileTime = define.histogram('controller_runtime_reconcile_time_seconds', 'Length of time per reconciliation per controller', perController, RECONCILE_TIME_BUCKETS);
  const maxConcurrentReconciles = define.gauge('controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', perController);
  const activeWorkers = define.gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', perController);

  const reconcileResults: readonly ReconcileResult[] = ['error', 'requeue_after', 'requeue', 'success'];

  return {
    registry,
    reconcileTotal,
    reconcileErrors,
    terminalReconcileErrors,
    reconcilePanics,
    reconcileTimeouts,
    reconcileTime,
    maxConcurrentReconciles,
    activeWorkers,
    restClientRequests: define.counter('rest_client_requests_total', 'Number of HTTP requests, partitioned by status code, method, and host.', ['code', 'method', 'host']),
    restClientRequestDuration: define.histogram('rest_client_request_duration_seconds', 'Request latency in seconds. Broken down by verb, and host.', ['verb', 'host'], REST_CLIENT_DURATION_BUCKETS),
    restClientRequestRetries: define.counter('rest_client_request_retries_total', 'Number of request retries, partitioned by status code, verb, and host.', ['code', 'verb', 'host']),
    leaderElectionMasterStatus: define.gauge(
      'leader_election_master_status',
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' " +
        'is the string used to identify the lease. Please make sure to group by name.',
      ['name'],
    ),
    // Ours: controller-runtime exits on a lost lease, so its users count container restarts; this manager campaigns
    // again and stays up, so it counts here what would otherwise go unseen.
    leadershipLost: define.counter('leader_election_lost_total', 'Leaderships this process lost because it could not renew the lease within the renew deadline; it then stopped every reconcile and campaigned again.', ['name']),
    informers: registerInformerMetrics(registry),
    workQueue(name: string, readState: () => WorkQueueState): WorkQueueMetrics {
      return workQueues.workQueue(name, readState);
    },
    initController(controller, { maxConcurrentReconciles: workers }) {
      for (const result of reconcileResults) reconcileTotal.inc({ controller, result }, 0);
      reconcileErrors.inc({ controller }, 0);
      terminalReconcileErrors.inc({ controller }, 0);
      reconcilePanics.inc({ controller }, 0);
      reconcileTimeouts.inc({ controller }, 0);
      maxConcurrentReconciles.set({ controller }, workers);
      activeWorkers.set({ controller }, 0);
    },
  };
}
