/**
 * A Prism task as the controller follows it, whichever API started it. Statuses are v3's words, which v4's are
 * translated to (its CANCELED is ABORTED): QUEUED, RUNNING, SUCCEEDED, FAILED, ABORTED …
 */
export interface VmTask {
  /** v3 task UUID or v4 task extId. */
  uuid: string;
  status: string;
  /** v3 `error_code`; v4 the first error's `errorGroup`. */
  errorCode?: string;
  errorDetail?: string;
  /** The VM the task acted on, which is how v4 tells the VM a create made. */
  vmUuid?: string;
}

/** Task states after which nothing more happens. */
export const TERMINAL_TASK_STATUSES: readonly string[] = ['SUCCEEDED', 'FAILED', 'ABORTED'];

export function isTaskFinished(task: Pick<VmTask, 'status'>): boolean {
  return TERMINAL_TASK_STATUSES.includes(task.status);
}

/** Whether a failure handed to `PrismVmApi.isEditConflict` is a task (else it is an error). */
export function isVmTask(value: unknown): value is VmTask {
  return typeof value === 'object' && value !== null && typeof (value as VmTask).uuid === 'string' && typeof (value as VmTask).status === 'string';
}
