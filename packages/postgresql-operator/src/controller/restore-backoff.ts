import { exponentialDelayMs } from '@k8s-operators/controller-core';

/**
 * When to try again to restore a pod whose restore failed: after 2 s, doubling up to 5 min, but at once when what the
 * restore depends on changed (the password Secret, the set of backups), which is what someone fixing the problem
 * does. Other events that wake the reconcile (a status write, another pod) do not cut the back-off short. A problem
 * that clears by itself (a store back after an outage) changes none of those inputs, so its wait stops growing at
 * 30 s: the pod serves at most 30 s after the store is back, not up to 5 min. One that no retry can fix (no pg_restore
 * of the server's major, a dump from a newer major) is not tried again until those inputs change: only another image
 * fixes it, and a new pod (spec.image) or an operator started on a new image begins with no memory of the failure.
 */

const RETRY_DELAY = { baseDelayMs: 2_000, maxDelayMs: 300_000 };
const SELF_CLEARING_RETRY_DELAY = { ...RETRY_DELAY, maxDelayMs: 30_000 };

interface Attempts {
  failures: number;
  notBefore: number;
  /** What the inputs looked like at the last failure. */
  inputs: string;
}

export class RestoreBackoff {
  readonly #pods = new Map<string, Attempts>();

  /** Milliseconds to wait before trying pod `uid` again with `inputs`; 0 means now, Infinity not with these inputs. */
  waitMs(uid: string, inputs: string, now: number): number {
    const attempts = this.#pods.get(uid);
    return attempts?.inputs === inputs ? Math.max(0, attempts.notBefore - now) : 0;
  }

  /** Records a failure, which may `clearByItself` (see above); returns the delay before the next attempt. */
  failed(uid: string, inputs: string, now: number, options: { clearsByItself?: boolean } = {}): number {
    const failures = (this.#pods.get(uid)?.failures ?? 0) + 1;
    const delay = exponentialDelayMs(failures, options.clearsByItself === true ? SELF_CLEARING_RETRY_DELAY : RETRY_DELAY);
    this.#pods.set(uid, { failures, notBefore: now + delay, inputs });
    return delay;
  }

  /** Records a failure no retry can fix: pod `uid` is not tried again with the same `inputs`. */
  refused(uid: string, inputs: string): void {
    const failures = (this.#pods.get(uid)?.failures ?? 0) + 1;
    this.#pods.set(uid, { failures, notBefore: Infinity, inputs });
  }

  succeeded(uid: string): void {
    this.#pods.delete(uid);
  }

  /** Forgets pods that no longer exist. */
  retain(liveUids: ReadonlySet<string>): void {
    for (const uid of this.#pods.keys()) if (!liveUids.has(uid)) this.#pods.delete(uid);
  }
}
