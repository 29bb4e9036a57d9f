import type { Counter, Registry } from 'prom-client';
import { metricsOn } from './metric-definitions.ts';

/**
 * Watch-liveness metrics of our own (controller-runtime has none): a watch that silently stopped (client-node #596,
 * Pepr #3178, kopf #1276) shows up as a growing `informer_last_event_age_seconds`, which alerts and readiness can use.
 */
export interface InformerMetrics {
  /** `informer_relists_total{resource}`: full lists after the informer's first one (410 Gone, failed watch, periodic relist). */
  readonly relists: Counter<'resource'>;
  /**
   * `informer_watch_restarts_total{resource,reason}`: watches re-opened, by why the previous one ended. Keep `reason` to a
   * small fixed set, e.g. `timeout` (server closed it as asked), `gone` (410), `error`, `inactivity` (watchdog).
   */
  readonly watchRestarts: Counter<'resource' | 'reason'>;
  /**
   * Makes `informer_last_event_age_seconds{resource}` report, at each scrape, the seconds since `lastEventAt()` (epoch
   * ms of the last watch event or bookmark, or of the watch start before the first one). Returns a function that stops
   * reporting, for when the informer is removed.
   */
  reportLastEvent(resource: string, lastEventAt: () => number): () => void;
}

export function registerInformerMetrics(registry: Registry): InformerMetrics {
  const reporters = new Set<{ resource: string; lastEventAt: () => number }>();

  const define = metricsOn(registry);
  define.gauge(
    'informer_last_event_age_seconds',
    'Seconds since the informer last received a watch event or bookmark (or since its watch started, before the ' +
      'first). A value that keeps growing means a stalled watch.',
    ['resource'],
    function collect() {
      this.reset();
      const now = Date.now();
      // Two informers on one resource (different selectors) share the label: report the stalest, the one to worry about.
      const ages = new Map<string, number>();
      for (const { resource, lastEventAt } of reporters) {
        const age = Math.max(0, (now - lastEventAt()) / 1000);
        ages.set(resource, Math.max(age, ages.get(resource) ?? 0));
      }
      for (const [resource, age] of ages) this.set({ resource }, age);
    },
  );

  return {
    relists: define.counter('informer_relists_total', 'Number of times the informer listed the resource again after its initial list.', ['resource']),
    watchRestarts: define.counter('informer_watch_restarts_total', 'Number of times the informer re-opened its watch, by the reason the previous watch ended.', ['resource', 'reason']),
    reportLastEvent(resource, lastEventAt) {
      const reporter = { resource, lastEventAt };
      reporters.add(reporter);
      return () => {
        reporters.delete(reporter);
      };
    },
  };
}
