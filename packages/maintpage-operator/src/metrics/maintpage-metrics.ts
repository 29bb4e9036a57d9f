import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The operator's own metrics, next to controller-core's controller_runtime_* ones. */
export interface MaintPageMetrics {
  /** `maintpage_published{namespace,name}`: 1 while the Service serves the maintenance page. */
  published: Gauge<'namespace' | 'name'>;
  /** `maintpage_switches_total{namespace,name,to}`: Service switches, `to` = `app` or `maintenance`. */
  switches: Counter<'namespace' | 'name' | 'to'>;
  /**
   * `maintpage_switch_latency_seconds{to}`: from the reconcile that first saw the wish to switch (toggle or schedule)
   * to the reconcile that pointed the Service at Ready pods of the other set.
   */
  switchLatency: Histogram<'to'>;
}

export function registerMaintPageMetrics(registry: Registry): MaintPageMetrics {
  const registers = [registry];
  return {
    published: new Gauge({ name: 'maintpage_published', help: '1 while the MaintPage serves the maintenance page, else 0', labelNames: ['namespace', 'name'] as const, registers }),
    switches: new Counter({ name: 'maintpage_switches_total', help: 'Service switches between the app and the maintenance page', labelNames: ['namespace', 'name', 'to'] as const, registers }),
    switchLatency: new Histogram({
      name: 'maintpage_switch_latency_seconds',
      help: 'Seconds from the toggle (or schedule boundary) being observed to the Service pointing at Ready pods of the other set',
      labelNames: ['to'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers,
    }),
  };
}
