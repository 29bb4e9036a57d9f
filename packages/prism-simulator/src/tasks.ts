// Tasks as GET /tasks/{uuid} shows them: QUEUED while an earlier task on the same VM runs,
// RUNNING with a growing percentage_complete for the operation's configured duration, then SUCCEEDED or
// FAILED with error_code and error_detail. The change a task makes is applied when it completes, so a GET
// of the VM keeps showing the old version until then, as the real API promises.

import { randomUUID } from 'node:crypto';
import { API_VERSION } from './errors.ts';
import type { Reference } from './vm-store.ts';

export type TaskOperation = 'create' | 'update' | 'delete';

/** The swagger's x-ntnx-enum for task status. The simulator produces the first four. */
export type TaskStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'SUSPENDED';

export interface TaskFailure {
  errorCode: string;
  errorDetail: string;
}

export interface TaskFaultDecision {
  extraMs: number;
  failure: TaskFailure | undefined;
}

/** Where the runner asks whether a new task should be slowed down or made to fail. */
export interface TaskFaultSource {
  decideTask(operation: TaskOperation): TaskFaultDecision;
}

/**
 * PC's own operation names for v3 VM intents (`update_vm_intentful` is seen in real PC task lists; the
 * others are unverified) and the matching human progress messages.
 */
const OPERATION_TYPES: Record<TaskOperation, string> = { create: 'create_vm_intentful', update: 'update_vm_intentful', delete: 'delete_vm_intentful' };
const PROGRESS_MESSAGES: Record<TaskOperation, string> = { create: 'Create the VM', update: 'Update the VM', delete: 'Delete the VM' };

export interface TaskSubmission {
  operation: TaskOperation;
  entity: Reference;
  cluster: Reference | undefined;
  durationMs: number;
  /** Tasks with the same key run one after another, as Prism serialises work on one entity. */
  queueKey?: string;
  /** Called when the task starts running. */
  onStart?: () => void;
  /**
   * Called when the task's time is up. Applies the change and returns why it failed, or undefined on
   * success. `injected` is a failure decided by fault injection, which the callback must honour.
   */
  complete: (injected: TaskFailure | undefined) => TaskFailure | undefined;
}

interface TaskRecord {
  readonly uuid: string;
  readonly submission: TaskSubmission;
  readonly durationMs: number;
  readonly injected: TaskFailure | undefined;
  status: TaskStatus;
  failure: TaskFailure | undefined;
  createdAt: number;
  startedAt: number | undefined;
  startedMonotonic: number | undefined;
  completedAt: number | undefined;
  lastUpdateAt: number;
  logicalTimestamp: number;
}

export interface TaskView {
  api_version: string;
  uuid: string;
  status: TaskStatus;
  percentage_complete: number;
  progress_message: string;
  operation_type: string;
  entity_reference_list: Reference[];
  cluster_reference?: Reference;
  subtask_reference_list: Reference[];
  creation_time: string;
  creation_time_usecs: number;
  start_time?: string;
  start_time_usecs?: number;
  completion_time?: string;
  completion_time_usecs?: number;
  last_update_time: string;
  logical_timestamp: number;
  error_code?: string;
  error_detail?: string;
}

export class TaskRunner {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly queues = new Map<string, TaskRecord[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly now: () => number;
  private readonly faults: TaskFaultSource;
  private stopped = false;

  constructor(now: () => number, faults: TaskFaultSource) {
    this.now = now;
    this.faults = faults;
  }

  /** Accepts a task and returns its uuid; it starts at once unless its queue is busy. */
  submit(submission: TaskSubmission): string {
    const fault = this.faults.decideTask(submission.operation);
    const createdAt = this.now();
    const task: TaskRecord = {
      uuid: randomUUID(),
      submission,
      durationMs: submission.durationMs + fault.extraMs,
      injected: fault.failure,
      status: 'QUEUED',
      failure: undefined,
      createdAt,
      startedAt: undefined,
      startedMonotonic: undefined,
      completedAt: undefined,
      lastUpdateAt: createdAt,
      logicalTimestamp: 1,
    };
    this.tasks.set(task.uuid, task);
    if (submission.queueKey === undefined) {
      this.start(task);
    } else {
      const queue = this.queues.get(submission.queueKey) ?? [];
      queue.push(task);
      this.queues.set(submission.queueKey, queue);
      if (queue.length === 1) this.start(task);
    }
    return task.uuid;
  }

  view(uuid: string): TaskView | undefined {
    const task = this.tasks.get(uuid);
    return task ? this.render(task) : undefined;
  }

  /** Every task, oldest first. */
  views(): TaskView[] {
    return [...this.tasks.values()].map((task) => this.render(task));
  }

  countsByStatus(): Partial<Record<TaskStatus, number>> {
    const counts: Partial<Record<TaskStatus, number>> = {};
    for (const task of this.tasks.values()) counts[task.status] = (counts[task.status] ?? 0) + 1;
    return counts;
  }

  /** Cancels every pending timer; tasks still running stay RUNNING forever. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private start(task: TaskRecord): void {
    if (this.stopped) return;
    task.status = 'RUNNING';
    task.startedAt = this.now();
    task.startedMonotonic = performance.now();
    this.touch(task);
    task.submission.onStart?.();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.finish(task);
    }, task.durationMs);
    this.timers.add(timer);
  }

  private finish(task: TaskRecord): void {
    let failure: TaskFailure | undefined;
    try {
      failure = task.submission.complete(task.injected);
    } catch (error) {
      failure = { errorCode: 'INTERNAL_ERROR', errorDetail: `INTERNAL_ERROR: ${error instanceof Error ? error.message : String(error)}` };
    }
    task.status = failure ? 'FAILED' : 'SUCCEEDED';
    task.failure = failure;
    task.completedAt = this.now();
    this.touch(task);
    const key = task.submission.queueKey;
    if (key === undefined) return;
    const queue = this.queues.get(key) ?? [];
    queue.shift();
    const next = queue[0];
    if (next) this.start(next);
    else this.queues.delete(key);
  }

  private touch(task: TaskRecord): void {
    task.lastUpdateAt = this.now();
    task.logicalTimestamp += 1;
  }

  private render(task: TaskRecord): TaskView {
    const { operation, entity, cluster } = task.submission;
    const view: TaskView = {
      api_version: API_VERSION,
      uuid: task.uuid,
      status: task.status,
      percentage_complete: this.percentage(task),
      progress_message: PROGRESS_MESSAGES[operation],
      operation_type: OPERATION_TYPES[operation],
      entity_reference_list: [{ kind: entity.kind, uuid: entity.uuid }],
      ...(cluster ? { cluster_reference: cluster } : {}),
      subtask_reference_list: [],
      creation_time: isoSeconds(task.createdAt),
      creation_time_usecs: task.createdAt * 1000,
      last_update_time: isoSeconds(task.lastUpdateAt),
      logical_timestamp: task.logicalTimestamp,
    };
    if (task.startedAt !== undefined) Object.assign(view, { start_time: isoSeconds(task.startedAt), start_time_usecs: task.startedAt * 1000 });
    if (task.completedAt !== undefined) Object.assign(view, { completion_time: isoSeconds(task.completedAt), completion_time_usecs: task.completedAt * 1000 });
    if (task.failure) Object.assign(view, { error_code: task.failure.errorCode, error_detail: task.failure.errorDetail });
    return view;
  }

  private percentage(task: TaskRecord): number {
    if (task.status === 'SUCCEEDED' || task.status === 'FAILED') return 100;
    if (task.startedMonotonic === undefined) return 0;
    const elapsed = performance.now() - task.startedMonotonic;
    return Math.min(99, Math.floor((elapsed / Math.max(task.durationMs, 1)) * 100));
  }
}

/** Timestamps as the real API writes them: RFC 3339 in UTC, whole seconds. */
export function isoSeconds(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19)}Z`;
}
