import { exponentialDelayMs } from '@k8s-operators/controller-core';

/**
 * When to try again to restore a pod whose restore failed: after 2 s, doubling up to 5 min, but at once when what the
 * restore depends on changed (the password Secret, the set of backups), which is what someone fixing the problem
 * does. Other events that wake the reconcile (a status write, another pod) do not cut the back-off short.
 */

const RETRY_DELAY = { baseDelayMs: 2_000, maxDelayMs: 300_000 };

interface Attempts {
  failures: number;
  notBefore: number;
  /** What the inputs looked like at the last failure. */
  inputs: string;
}

export class RestoreBackoff {
  readonly #pods = new Map<string, Attempts>();

  /** Milliseconds to wait before trying pod `uid` again with `inputs`; 0 means now. */
  waitMs(uid: string, inputs: string, now: number): number {
    const attempts = this.#pods.get(uid);
    return attempts?.inputs === inputs ? Math.max(0, attempts.notBefore - now) : 0;
  }

  /** Records a failure; returns the delay before the next attempt. */
  failed(uid: string, inputs: string, now: number): number {
    const failures = (this.#pods.get(uid)?.failures ?? 0) + 1;
    const delay = exponentialDelayMs(failures, RETRY_DELAY);
    this.#pods.set(uid, { failures, notBefore: now + delay, inputs });
    return delay;
  }

  succeeded(uid: string): void {
    this.#pods.delete(uid);
  }

  /** Forgets pods that no longer exist. */
  retain(liveUids: ReadonlySet<string>): void {
    for (const uid of this.#pods.keys()) if (!liveUids.has(uid)) this.#pods.delete(uid);
  }
}
