import type { AhvVmMetrics } from '../metrics/ahvvm-metrics.ts';
import type { PrismVmApi } from '../vm/prism-vm-api.ts';
import { isTaskFinished } from '../vm/vm-task.ts';
import type { AhvVmReporter } from './ahvvm-reporter.ts';
import type { AhvVmScope } from './ahvvm-scope.ts';
import { failed, Reason } from '../desired/desired-ahvvm-status.ts';
import { eventActionOf, finishedTask, isTaskPending, UNKNOWN_TASK_STATUS } from './task-record.ts';

export type TaskFollowed = 'running' | 'failed' | 'done';

/**
 * Looks at the task the operator started last, if it has not ended yet: `running` (look again later), `failed`
 * (reported; retry after a back-off), or `done` (ended well, or with an edit conflict — which only means "read the
 * VM again and plan afresh" — or there was nothing to follow).
 */
export async function followTask(
  deps: { report: AhvVmReporter; metrics: AhvVmMetrics },
  scope: AhvVmScope,
  api: PrismVmApi,
): Promise<TaskFollowed> {
  const last = scope.status.lastTask;
  if (!isTaskPending(last)) return 'done';
  const task = await api.getTask(last.uuid);
  if (task === undefined) {
    await scope.record({ lastTask: { ...last, status: UNKNOWN_TASK_STATUS } });
    return 'done';
  }
  if (!isTaskFinished(task)) {
    if (task.status !== last.status) await scope.record({ lastTask: { ...last, status: task.status } });
    return 'running';
  }
  deps.metrics.taskFinished({ operation: last.operation, result: task.status.toLowerCase() });
  const record = finishedTask(task, last.operation);
  if (task.status === 'SUCCEEDED' && last.operation === 'create' && scope.status.uuid === undefined) {
    // v4: the VM's extId is known from its create task only.
    const uuid = task.vmUuid;
    await scope.record({ lastTask: record, ...(uuid === undefined ? {} : { uuid }) });
    return 'done';
  }
  if (task.status === 'SUCCEEDED' || api.isEditConflict(task)) {
    await scope.record({ lastTask: record });
    return 'done';
  }
  const message = `the ${last.operation} task ${last.uuid} ended ${task.status}: ${record.error ?? 'Prism gave no detail'}`;
  deps.report.event(scope, 'Warning', Reason.TaskFailed, eventActionOf(last.operation), message);
  await scope.report(failed(Reason.TaskFailed, message), { lastTask: record });
  return 'failed';
}
