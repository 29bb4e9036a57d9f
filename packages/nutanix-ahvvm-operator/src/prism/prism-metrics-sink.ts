/**
 * What the Prism client reports about its traffic. The client depends on this interface only; `registerAhvVmMetrics`
 * (`../metrics/ahvvm-metrics.ts`) implements it with prom-client.
 */
export interface PrismMetricsSink {
  /**
   * One HTTP attempt finished. `endpoint` is the path template (`/vms/{uuid}`), never a concrete UUID, so label
   * cardinality stays fixed; `code` is the HTTP status, or `<error>` when no answer came back.
   */
  requestFinished(labels: { method: string; endpoint: string; code: string }, durationSeconds: number): void;
  /** A task the client waited for ended; `result` is its final status in lower case (`succeeded`, `failed` …). */
  taskFinished(labels: { operation: string; result: string }): void;
}

export const NO_PRISM_METRICS: PrismMetricsSink = {
  requestFinished: () => undefined,
  taskFinished: () => undefined,
};
