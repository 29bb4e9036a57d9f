import type { VmTask } from '../vm/vm-task.ts';
import { PrismApiError } from './prism-errors.ts';

/**
 * A PUT based on a stale `spec_version`, or sent while another change runs, is an edit conflict. Older Prism Central
 * versions answer 409 at once; pc.2022.1 and later accept it with 202 and fail the task. Either way
 * the cure is the same: read the VM again and plan afresh.
 */
export const EDIT_CONFLICT_REASON = 'CONCURRENT_REQUESTS_NOT_ALLOWED';

/** True for a 409 answer to a PUT, or a task that failed with an edit conflict. */
export function isEditConflict(failure: PrismApiError | VmTask): boolean {
  if (failure instanceof PrismApiError) return failure.method === 'PUT' && failure.status === 409;
  if (failure.status !== 'FAILED') return false;
  const text = `${failure.errorCode ?? ''} ${failure.errorDetail ?? ''}`;
  return text.includes(EDIT_CONFLICT_REASON) || /edit conflict|version mismatch/i.test(text);
}
