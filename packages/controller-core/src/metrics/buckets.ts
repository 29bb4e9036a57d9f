/** Histogram buckets, copied from controller-runtime and client-go so existing dashboards' `le` values line up. */

/** `controller_runtime_reconcile_time_seconds` (controller-runtime `pkg/internal/controller/metrics`). */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * `workqueue_queue_duration_seconds` and `workqueue_work_duration_seconds`: Go's `ExponentialBuckets(10e-9, 10, 12)`,
 * written out because repeated float multiplication would give labels such as `le="1.0000000000000001e-7"`.
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = [
  1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000,
];

/** `rest_client_request_duration_seconds` (client-go `component-base/metrics/prometheus/restclient`). */
export const REST_CLIENT_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60,
];
