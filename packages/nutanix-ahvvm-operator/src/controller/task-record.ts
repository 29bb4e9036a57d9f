import type { AhvVmStatus } from '../api/ahvvm-resource.ts';
import { Reason } from '../desired/desired-ahvvm-status.ts';
import { TERMINAL_TASK_STATUSES, type VmTask } from '../vm/vm-task.ts';

/**
 * `status.lastTask`: the Prism task the operator started last, followed by requeueing the resource until it ends
 * (never by holding a worker while Prism works).
 */
export type LastTask = NonNullable<AhvVmStatus['lastTask']>;

/** What a task does, as `lastTask.operation` and the `operation` label of `prism_tasks_total` name it. */
export type TaskOperation = 'create' | 'update' | 'power-off' | 'power-on' | 'delete';

/** `lastTask.status` of a task Prism no longer knows (tasks are purged after a while). */
export const UNKNOWN_TASK_STATUS = 'UNKNOWN';

/**
 * A task just submitted. Prism's answer to the request names the task but not its state; QUEUED is recorded until
 * the first look says otherwise.
 */
export function submittedTask(uuid: string, operation: TaskOperation): LastTask {
  return { uuid, operation, status: 'QUEUED' };
}

/** Whether the operator still has to find out how the task ends. */
export function isTaskPending(task: LastTask | undefined): task is LastTask {
  return task !== undefined && task.status !== UNKNOWN_TASK_STATUS && !TERMINAL_TASK_STATUSES.includes(task.status);
}

export function isTaskFailure(task: LastTask | undefined): boolean {
  return task?.status === 'FAILED' || task?.status === 'ABORTED';
}

export function finishedTask(task: VmTask, operation: string): LastTask {
  const error = [task.errorCode, task.errorDetail].filter((part) => part !== undefined && part !== '').join(': ');
  return { uuid: task.uuid, operation, status: task.status, ...(error === '' ? {} : { error }) };
}

/** The Ready reason while a task of `operation` runs. */
export function reasonWhileRunning(operation: string): string {
  switch (operation) {
    case 'create':
      return Reason.Creating;
    case 'power-off':
      return Reason.PoweringOff;
    case 'power-on':
      return Reason.PoweringOn;
    case 'delete':
      return Reason.Deleting;
    default:
      return Reason.Updating;
  }
}

/** The Event `action` (CamelCase) for a task of `operation`. */
export function eventActionOf(operation: string): string {
  return operation
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
