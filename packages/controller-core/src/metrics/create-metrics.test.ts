import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RECONCILE_TIME_BUCKETS, REST_CLIENT_DURATION_BUCKETS, WORKQUEUE_DURATION_BUCKETS } from './buckets.ts';
import { createMetrics, type ControllerCoreMetrics } from './create-metrics.ts';

/** Touches every metric once so each has a series in the exposition. */
function exerciseAll(metrics: ControllerCoreMetrics): void {
  metrics.initController('maintpage', { maxConcurrentReconciles: 2 });
  metrics.reconcileTime.observe({ controller: 'maintpage' }, 0.2);
  metrics.restClientRequests.inc({ code: '200', method: 'GET', host: '10.0.0.1:6443' });
  metrics.restClientRequestDuration.observe({ verb: 'GET', host: '10.0.0.1:6443' }, 0.01);
  metrics.restClientRequestRetries.inc({ code: '429', verb: 'PATCH', host: '10.0.0.1:6443' });
  metrics.leaderElectionMasterStatus.set({ name: 'maintpage-operator' }, 1);
  metrics.leadershipLost.inc({ name: 'maintpage-operator' });
  metrics.informers.relists.inc({ resource: 'maintpages.maintpage.example.com' });
  metrics.informers.watchRestarts.inc({ resource: 'maintpages.maintpage.example.com', reason: 'timeout' });
  metrics.informers.reportLastEvent('maintpages.maintpage.example.com', () => Date.now() - 42_000);
  metrics.workQueue('maintpage', () => ({ depth: new Map([[0, 3]]), processingSeconds: [1, 4] }));
}

interface Family {
  type: string;
  labels: string[];
  /** `le` bounds of a histogram, +Inf included. */
  buckets?: number[];
}

/** Metric families of a text exposition: TYPE, label names (minus `le`) and histogram buckets. */
function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] !== undefined && type[2] !== undefined) {
      families.set(type[1], { type: type[2], labels: [] });
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (sample?.[1] === undefined) continue;
    const name = sample[1];
    const family = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ''));
    if (family === undefined) throw new Error(`sample without TYPE: ${line}`);
    const labels = [...(sample[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)];
    for (const [, label, value] of labels) {
      if (label === 'le') (family.buckets ??= []).push(value === '+Inf' ? Infinity : Number(value));
      else if (label !== undefined && !family.labels.includes(label)) family.labels.push(label);
    }
  }
  for (const family of families.values()) {
    family.labels.sort();
    if (family.buckets) family.buckets = [...new Set(family.buckets)];
  }
  return families;
}

describe('createMetrics', () => {
  it("exposes exactly controller-runtime's metrics (names, types, labels, buckets) plus our informer and lost-leadership metrics", async () => {
    const metrics = createMetrics(new Registry());
    exerciseAll(metrics);
    const families = parseExposition(await metrics.registry.metrics());
    const ours = Object.fromEntries(
      [...families].filter(([name]) => !name.startsWith('process_') && !name.startsWith('nodejs_')),
    );

    const controller = ['controller'];
    const queue = ['controller', 'name'];
    expect(ours).toEqual({
      controller_runtime_reconcile_total: { type: 'counter', labels: ['controller', 'result'] },
      controller_runtime_reconcile_errors_total: { type: 'counter', labels: controller },
      controller_runtime_terminal_reconcile_errors_total: { type: 'counter', labels: controller },
      controller_runtime_reconcile_panics_total: { type: 'counter', labels: controller },
      controller_runtime_reconcile_timeouts_total: { type: 'counter', labels: controller },
      controller_runtime_reconcile_time_seconds: {
        type: 'histogram',
        labels: controller,
        buckets: [...RECONCILE_TIME_BUCKETS, Infinity],
      },
      controller_runtime_max_concurrent_reconciles: { type: 'gauge', labels: controller },
      controller_runtime_active_workers: { type: 'gauge', labels: controller },
      workqueue_depth: { type: 'gauge', labels: ['controller', 'name', 'priority'] },
      workqueue_adds_total: { type: 'counter', labels: queue },
      workqueue_retries_total: { type: 'counter', labels: queue },
      workqueue_queue_duration_seconds: { type: 'histogram', labels: queue, buckets: [...WORKQUEUE_DURATION_BUCKETS, Infinity] },
      workqueue_work_duration_seconds: { type: 'histogram', labels: queue, buckets: [...WORKQUEUE_DURATION_BUCKETS, Infinity] },
      workqueue_unfinished_work_seconds: { type: 'gauge', labels: queue },
      workqueue_longest_running_processor_seconds: { type: 'gauge', labels: queue },
      rest_client_requests_total: { type: 'counter', labels: ['code', 'host', 'method'] },
      rest_client_request_duration_seconds: {
        type: 'histogram',
        labels: ['host', 'verb'],
        buckets: [...REST_CLIENT_DURATION_BUCKETS, Infinity],
      },
      rest_client_request_retries_total: { type: 'counter', labels: ['code', 'host', 'verb'] },
      leader_election_master_status: { type: 'gauge', labels: ['name'] },
      leader_election_lost_total: { type: 'counter', labels: ['name'] },
      informer_last_event_age_seconds: { type: 'gauge', labels: ['resource'] },
      informer_relists_total: { type: 'counter', labels: ['resource'] },
      informer_watch_restarts_total: { type: 'counter', labels: ['reason', 'resource'] },
    });
  });

  it('has the exact bucket boundaries controller-runtime and client-go use', () => {
    expect(RECONCILE_TIME_BUCKETS).toEqual([
      0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75,
      2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
    ]);
    // ExponentialBuckets(1e-8, 10, 12)
    expect(WORKQUEUE_DURATION_BUCKETS).toEqual(Array.from({ length: 12 }, (_, i) => Number(`1e${i - 8}`)));
    expect(REST_CLIENT_DURATION_BUCKETS).toEqual([0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60]);
  });

  it('registers the default process and Node.js collectors', async () => {
    const metrics = createMetrics(new Registry());
    const families = parseExposition(await metrics.registry.metrics());
    expect(families.has('process_cpu_user_seconds_total')).toBe(true);
    expect(families.has('process_resident_memory_bytes')).toBe(true);
    expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('starts a controller with zeroed counters for every result, as controller-runtime does', async () => {
    const metrics = createMetrics(new Registry());
    metrics.initController('maintpage', { maxConcurrentReconciles: 4 });
    const text = await metrics.registry.metrics();
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(text).toContain(`controller_runtime_reconcile_total{controller="maintpage",result="${result}"} 0`);
    }
    expect(text).toContain('controller_runtime_reconcile_panics_total{controller="maintpage"} 0');
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="maintpage"} 4');
    expect(text).toContain('controller_runtime_active_workers{controller="maintpage"} 0');
  });

  it('reads queue and informer gauges at scrape time', async () => {
    const metrics = createMetrics(new Registry());
    let depth = new Map([[0, 1]]);
    const queue = metrics.workQueue('maintpage', () => ({ depth, processingSeconds: [2, 5] }));
    let lastEvent = Date.now() - 10_000;
    const stopReporting = metrics.informers.reportLastEvent('pods', () => lastEvent);
    // A second informer on the same resource that is staler wins: the stale watch is the one to notice. Its time is
    // taken once, so the age read at scrape time is 100 s or a little more, never a millisecond under.
    const staleEvent = Date.now() - 100_000;
    metrics.informers.reportLastEvent('pods', () => staleEvent);

    let text = await metrics.registry.metrics();
    expect(text).toContain('workqueue_depth{name="maintpage",controller="maintpage",priority="0"} 1');
    expect(text).toContain('workqueue_unfinished_work_seconds{name="maintpage",controller="maintpage"} 7');
    expect(text).toContain('workqueue_longest_running_processor_seconds{name="maintpage",controller="maintpage"} 5');
    expect(text).toMatch(/informer_last_event_age_seconds\{resource="pods"\} 100(\.\d+)?\n/);

    // Keys at the low priority of the initial list get a series of their own, which stays (at 0) once they ran, as
    // controller-runtime's does.
    depth = new Map([[0, 4], [-100, 9]]);
    lastEvent = Date.now();
    stopReporting();
    text = await metrics.registry.metrics();
    expect(text).toContain('workqueue_depth{name="maintpage",controller="maintpage",priority="0"} 4');
    expect(text).toContain('workqueue_depth{name="maintpage",controller="maintpage",priority="-100"} 9');
    depth = new Map();
    text = await metrics.registry.metrics();
    expect(text).toContain('workqueue_depth{name="maintpage",controller="maintpage",priority="0"} 0');
    expect(text).toContain('workqueue_depth{name="maintpage",controller="maintpage",priority="-100"} 0');

    queue.close();
    text = await metrics.registry.metrics();
    expect(text).not.toContain('workqueue_depth{');
  });
});
