import { setTimeout as sleep } from 'node:timers/promises';
import type { WaitForTaskOptions } from './prism-client-options.ts';
import { PrismTaskTimeoutError } from './prism-errors.ts';
import type { PrismMetricsSink } from './prism-metrics-sink.ts';

/** The longest wait between two polls of a task, however long it has been running. */
const MAX_POLL_INTERVAL_MS = 5_000;

/** How `pollTask` reads one API's tasks: both APIs' tasks have a `status`, but in their own shapes and terminal sets. */
export interface TaskSource<T extends { status: string }> {
  /** The task, or undefined when Prism does not know it. */
  get(id: string): Promise<T | undefined>;
  isFinished(task: T): boolean;
  /** The error for a task Prism does not know, in the API's own terms (v3 `INVALID_UUID`, v4 a 404). */
  unknownTask(id: string): Error;
}

/**
 * Polls a task until it is finished, and returns it; it is not an error for a task to fail — the caller looks at its
 * status. The wait grows by half each poll up to 5 s, and the outcome is counted in `prism_tasks_total`. One loop for
 * the v3 and the v4 client, so their polling, timeout and metrics cannot drift apart.
 */
export async function pollTask<T extends { status: string }>(
  source: TaskSource<T>,
  id: string,
  options: WaitForTaskOptions,
  metrics: PrismMetricsSink,
): Promise<T> {
  const { operation, timeoutMs = 600_000 } = options;
  const deadline = performance.now() + timeoutMs;
  let interval = options.pollIntervalMs ?? 500;
  for (;;) {
    const task = await source.get(id);
    if (task === undefined) throw source.unknownTask(id);
    if (source.isFinished(task)) {
      metrics.taskFinished({ operation, result: task.status.toLowerCase() });
      return task;
    }
    if (performance.now() + interval > deadline) throw new PrismTaskTimeoutError(id, task.status, timeoutMs);
    await sleep(interval);
    interval = Math.min(interval * 1.5, MAX_POLL_INTERVAL_MS);
  }
}
