import { metricsOn } from '@k8s-operators/controller-core';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  const define = metricsOn(registry);
  return {
    published: define.gauge('maintpage_published', '1 while the MaintPage serves the maintenance page, else 0', ['namespace', 'name']),
    switches: define.counter('maintpage_switches_total', 'Service switches between the app and the maintenance page', ['namespace', 'name', 'to']),
    switchLatency: define.histogram(
      'maintpage_switch_latency_seconds',
      'Seconds from the toggle (or schedule boundary) being observed to the Service pointing at Ready pods of the other set',
      ['to'],
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    ),
  };
}
