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

/**
 * The AhvVm controller's back-offs of its own (`withOptions({ requeueBackoffs })`). `prism`: after Prism failed a
 * request or a task, 1 s doubling to 5 minutes, spread by ±10 %, counted per AhvVm. Errors of the API server (a
 * conflict of the status write when the cache lags, say) keep the work queue's 5 ms → 1000 s: they go away at the
 * next try, and a Prism request that keeps failing would otherwise be sent ten times in the first second.
 */
export const REQUEUE_BACKOFFS = { prism: { baseDelayMs: 1_000, maxDelayMs: 300_000, jitter: 0.1 } } as const;
const PRISM_BACKOFF: keyof typeof REQUEUE_BACKOFFS = 'prism';

/**
 * When a reconcile looks at its VM again. Each result but `inSync` keeps the AhvVm's back-offs (`forget: false`): a
 * task that is polled after a failure may fail again, and should then wait longer than the last. Only a VM in sync
 * resets them (or the AhvVm's deletion).
 */
export class RequeueTiming {
  readonly #intervals: ReconcileIntervals;

  constructor(intervals: Partial<ReconcileIntervals> = {}) {
    this.#intervals = { ...DEFAULT_INTERVALS, ...intervals };
  }

  /** A task runs, or the VM is to be read again at once after a step. */
  poll(): ReconcileResult {
    return { requeueAfterMs: this.#intervals.taskPollMs, forget: false };
  }

  /** Nothing to do until the spec changes or someone changes the VM in Prism. */
  driftCheck(): ReconcileResult {
    return { requeueAfterMs: this.#driftCheckMs(), forget: false };
  }

  /**
   * The VM matches its spec: the back-offs start over, and the VM is looked at again for drift, or sooner while DHCP
   * has yet to give it an address.
   */
  inSync(awaitingAddress: boolean): ReconcileResult {
    if (!awaitingAddress) return { requeueAfterMs: this.#driftCheckMs() };
    return { requeueAfterMs: Math.min(this.#intervals.addressPollMs, this.#intervals.driftCheckMs) };
  }

  /** Prism failed a request or a task: the AhvVm's Prism back-off, which is not counted as a reconcile error. */
  prismRetry(): ReconcileResult {
    return { requeue: true, backoff: PRISM_BACKOFF };
  }

  /**
   * Prism (a 429's Retry-After) or the access gate said how long to wait: that long, keeping the back-off's count; the
   * back-off when they did not, or said 0.
   */
  waitOrPrismRetry(waitMs: number | undefined): ReconcileResult {
    return waitMs ? { requeueAfterMs: waitMs, forget: false } : this.prismRetry();
  }

  #driftCheckMs(): number {
    return Math.round(this.#intervals.driftCheckMs * (0.9 + 0.2 * Math.random()));
  }
}
