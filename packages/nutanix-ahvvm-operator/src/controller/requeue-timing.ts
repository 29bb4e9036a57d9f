import type { ReconcileResult } from '@k8s-operators/controller-core';

export interface ReconcileIntervals {
  /** How often a running Prism task is looked at. Default 1 s. */
  taskPollMs: number;
  /**
   * How often an idle VM is compared with its AhvVm. Prism has no watch, so this is how changes made in Prism (and
   * VMs deleted there) are found. Spread by ±10 %, so that VMs created together are not all read at the same moment
   * ever after. Default 60 s.
   */
  driftCheckMs: number;
  /** How often a running VM with NICs but no IP address yet is looked at, until DHCP gives it one. Default 5 s. */
  addressPollMs: number;
}

export const DEFAULT_INTERVALS: ReconcileIntervals = { taskPollMs: 1_000, driftCheckMs: 60_000, addressPollMs: 5_000 };

/** When a reconcile that is not failing looks at its VM again. */
export class RequeueTiming {
  readonly #intervals: ReconcileIntervals;

  constructor(intervals: Partial<ReconcileIntervals> = {}) {
    this.#intervals = { ...DEFAULT_INTERVALS, ...intervals };
  }

  /** A task runs, or the VM is to be read again at once after a step. */
  poll(): ReconcileResult {
    return { requeueAfterMs: this.#intervals.taskPollMs };
  }

  /** Nothing to do until the spec changes or someone changes the VM in Prism. */
  driftCheck(): ReconcileResult {
    return { requeueAfterMs: Math.round(this.#intervals.driftCheckMs * (0.9 + 0.2 * Math.random())) };
  }

  /** In sync, but DHCP has yet to give the VM an address. */
  addressPoll(): ReconcileResult {
    return { requeueAfterMs: Math.min(this.#intervals.addressPollMs, this.#intervals.driftCheckMs) };
  }
}
