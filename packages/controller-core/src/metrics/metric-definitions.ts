import { Counter, Gauge, Histogram, type GaugeConfiguration, type Registry } from 'prom-client';

/**
 * Defines metrics on one registry. What tells one metric from another is its name, help text and label names (and a
 * histogram's buckets); the registry is bound once here, so that each definition is the line a dashboard author
 * reads. Label names are inferred as literal types, so `inc({ controller })` is checked against them.
 */
export interface MetricDefinitions {
  counter<L extends string = string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  /** `collect` runs at each scrape, for a gauge read from live state rather than set as things happen. */
  gauge<L extends string = string>(name: string, help: string, labelNames?: readonly L[], collect?: GaugeConfiguration<L>['collect']): Gauge<L>;
  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): Histogram<L>;
}

export function metricsOn(registry: Registry): MetricDefinitions {
  const registers = [registry];
  return {
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers }),
    gauge: (name, help, labelNames = [], collect) => new Gauge({ name, help, labelNames, registers, ...(collect === undefined ? {} : { collect }) }),
    histogram: (name, help, labelNames, buckets) => new Histogram({ name, help, labelNames, buckets: [...buckets], registers }),
  };
}
