import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { WORKQUEUE_DURATION_BUCKETS } from './buckets.ts';

/**
 * The `workqueue_*` metrics of controller-runtime (`pkg/metrics/workqueue.go`), same names, help, labels and buckets.
 *
 * Counters and histograms are pushed by the queue as things happen. The three gauges (depth, unfinished work,
 * longest running processor) are read from the queue at scrape time instead: client-go refreshes the last two every
 * 500 ms from a goroutine, which we would need a timer for, and a pull is exact at the moment Prometheus looks.
 */

/** What a work queue reports as things happen. */
export interface WorkQueueMetrics {
  /** A key became ready to run (`workqueue_adds_total`). Repeats of an already-queued key are not adds. */
  added(): void;
  /** A key was scheduled with a non-zero delay (`workqueue_retries_total`), as in controller-runtime's priority queue. */
  retried(): void;
  /** A worker took a key that had been ready for `waitedSeconds` (`workqueue_queue_duration_seconds`). */
  started(waitedSeconds: number): void;
  /** A worker finished a key it had held for `workedSeconds` (`workqueue_work_duration_seconds`). */
  finished(workedSeconds: number): void;
  /** Stops reporting this queue's gauges; call once the queue is shut down and idle. */
  close(): void;
}

/** What a work queue reports when scraped. */
export interface WorkQueueState {
  /**
   * Keys waiting to run by priority, including keys that will run again once their in-flight run is done
   * (`workqueue_depth`, one series per priority).
   */
  depth: ReadonlyMap<number, number>;
  /** For each key being processed, seconds since a worker took it. */
  processingSeconds: readonly number[];
}

/** Hands a queue its metrics; `createMetrics()` returns one, tests may pass their own. */
export interface WorkQueueMetricsProvider {
  /** `name` fills both the `name` and `controller` labels: in controller-runtime a controller's queue is named after it. */
  workQueue(name: string, readState: () => WorkQueueState): WorkQueueMetrics;
}

const LABELS = ['name', 'controller'] as const;

interface LiveQueue {
  name: string;
  readState: () => WorkQueueState;
}

/** Registers the `workqueue_*` metrics on `registry` and returns the provider queues get their metrics from. */
export function registerWorkQueueMetrics(registry: Registry): WorkQueueMetricsProvider {
  const live = new Set<LiveQueue>();
  /** By queue name, every priority its depth series has reported. */
  const seenPriorities = new Map<string, Set<number>>();

  // Several queues may share a name (tests, a controller restarted in-process): sum their depth and unfinished
  // work, and take the longest runner, as one Go queue with all their keys would report.
  function totalsByName(): Map<string, { depth: Map<number, number>; unfinished: number; longest: number }> {
    const totals = new Map<string, { depth: Map<number, number>; unfinished: number; longest: number }>();
    for (const queue of live) {
      const state = queue.readState();
      const total = totals.get(queue.name) ?? { depth: new Map<number, number>(), unfinished: 0, longest: 0 };
      for (const [priority, depth] of state.depth) total.depth.set(priority, (total.depth.get(priority) ?? 0) + depth);
      for (const seconds of state.processingSeconds) {
        total.unfinished += seconds;
        total.longest = Math.max(total.longest, seconds);
      }
      totals.set(queue.name, total);
    }
    return totals;
  }

  new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue by workqueue and priority',
    labelNames: ['name', 'controller', 'priority'] as const,
    registers: [registry],
    collect() {
      this.reset();
      // As controller-runtime's priority queue does, a priority's series stays once it has had keys (at 0 when empty),
      // and priority "0" is there from the start.
      for (const [name, total] of totalsByName()) {
        const priorities = seenPriorities.get(name) ?? new Set<number>([0]);
        seenPriorities.set(name, priorities);
        for (const priority of total.depth.keys()) priorities.add(priority);
        for (const priority of priorities) this.set({ name, controller: name, priority: String(priority) }, total.depth.get(priority) ?? 0);
      }
    },
  });
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help:
      'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
      'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at ' +
      'which this increases.',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, total] of totalsByName()) this.set({ name, controller: name }, total.unfinished);
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, total] of totalsByName()) this.set({ name, controller: name }, total.longest);
    },
  });
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: LABELS,
    registers: [registry],
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: LABELS,
    registers: [registry],
  });
  const queueDuration = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: LABELS,
    buckets: [...WORKQUEUE_DURATION_BUCKETS],
    registers: [registry],
  });
  const workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: LABELS,
    buckets: [...WORKQUEUE_DURATION_BUCKETS],
    registers: [registry],
  });

  return {
    workQueue(name, readState) {
      const labels = { name, controller: name };
      const queue: LiveQueue = { name, readState };
      live.add(queue);
      // As in Go, where the queue's series are created when the queue is: rate() over a queue that never retried
      // is 0, not absent.
      adds.inc(labels, 0);
      retries.inc(labels, 0);
      queueDuration.zero(labels);
      workDuration.zero(labels);
      return {
        added: () => {
          adds.inc(labels);
        },
        retried: () => {
          retries.inc(labels);
        },
        started: (waitedSeconds) => {
          queueDuration.observe(labels, waitedSeconds);
        },
        finished: (workedSeconds) => {
          workDuration.observe(labels, workedSeconds);
        },
        close: () => {
          live.delete(queue);
        },
      };
    },
  };
}
