import type { Registry } from 'prom-client';
import { WORKQUEUE_DURATION_BUCKETS } from './buckets.ts';
import { metricsOn } from './metric-definitions.ts';

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

  const define = metricsOn(registry);
  define.gauge('workqueue_depth', 'Current depth of workqueue by workqueue and priority', ['name', 'controller', 'priority'], function collect() {
    this.reset();
    // As controller-runtime's priority queue does, a priority's series stays once it has had keys (at 0 when empty),
    // and priority "0" is there from the start.
    for (const [name, total] of totalsByName()) {
      const priorities = seenPriorities.get(name) ?? new Set<number>([0]);
      seenPriorities.set(name, priorities);
      for (const priority of total.depth.keys()) priorities.add(priority);
      for (const priority of priorities) this.set({ name, controller: name, priority: String(priority) }, total.depth.get(priority) ?? 0);
    }
  });
  define.gauge(
    'workqueue_unfinished_work_seconds',
    'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
      'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at ' +
      'which this increases.',
    LABELS,
    function collect() {
      this.reset();
      for (const [name, total] of totalsByName()) this.set({ name, controller: name }, total.unfinished);
    },
  );
  define.gauge('workqueue_longest_running_processor_seconds', 'How many seconds has the longest running processor for workqueue been running.', LABELS, function collect() {
    this.reset();
    for (const [name, total] of totalsByName()) this.set({ name, controller: name }, total.longest);
  });
  const adds = define.counter('workqueue_adds_total', 'Total number of adds handled by workqueue', LABELS);
  const retries = define.counter('workqueue_retries_total', 'Total number of retries handled by workqueue', LABELS);
  const queueDuration = define.histogram('workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested', LABELS, WORKQUEUE_DURATION_BUCKETS);
  const workDuration = define.histogram('workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes.', LABELS, WORKQUEUE_DURATION_BUCKETS);

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
