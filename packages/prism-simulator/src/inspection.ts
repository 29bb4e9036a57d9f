// What a test can ask the simulator about itself: every VM including those still being created, the
// categories that exist, and counts of the Prism traffic it has seen.

import type { CategorySeed, CategoryStore } from './categories.ts';
import type { RequestCount, RequestStats } from './request-stats.ts';
import type { TaskRunner, TaskStatus } from './tasks.ts';
import { VMM_VMS_PATH } from './v4-endpoints.ts';
import type { InspectedVm, VmService } from './vm-service.ts';

export interface SimulatorInspection {
  /** Every VM held, in creation order: being created, ready, or being deleted. */
  vms: InspectedVm[];
  /** VM create requests received (v3 `POST /vms` and v4 `POST …/ahv/config/vms`), whatever their outcome (faulted, rejected or accepted). */
  createRequests: number;
  /** The most Prism API requests that were in progress at the same time. */
  peakConcurrentRequests: number;
  inFlightRequests: number;
  /** Requests by method, endpoint and status code (or `dropped`). */
  requests: RequestCount[];
  tasks: Partial<Record<TaskStatus, number>>;
  /** The category keys that exist now, with their values. */
  categories: CategorySeed[];
}

export function inspectSimulator(vms: VmService, stats: RequestStats, tasks: TaskRunner, categories: CategoryStore): SimulatorInspection {
  return {
    vms: vms.inspect(),
    createRequests: stats.total('POST /vms') + stats.total(`POST ${VMM_VMS_PATH}`),
    peakConcurrentRequests: stats.peakConcurrentRequests,
    inFlightRequests: stats.inFlightRequests,
    requests: stats.requestCounts(),
    tasks: tasks.countsByStatus(),
    categories: categories.snapshot(),
  };
}
