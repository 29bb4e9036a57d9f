import { exponentialDelayMs } from '@k8s-operators/controller-core';

/**
 * Which failed Prism requests the client repeats on its own, and after how long.
 *
 * A request is `repeatable` when doing it twice has the effect of doing it once: GET, POST /vms/list, GET /tasks,
 * DELETE (v3 deletes without a version check and a second DELETE finds the same task or a 404), POST
 * /idempotence_identifiers (an extra reservation just expires), and POST /vms *with* an idempotence UUID (a second POST
 * of the same UUID cannot make a second VM). Those are repeated after a 5xx, a dropped connection or a timeout.
 *
 * PUT /vms/{uuid} is `once`: it carries the spec_version it was based on, so repeating it cannot apply a change twice,
 * but if the first attempt was applied the repeat can only fail with an edit conflict and report a failure for a
 * change that succeeded. The caller's real recovery is to read the VM again and plan afresh, so a PUT is repeated only
 * when Prism provably did not process it: a 429 (refused at the gateway) or a connection that was never established.
 *
 * A 429 is repeated for every request after the `Retry-After` the server sent (or the backoff when it sent none),
 * unless that is longer than `maxRetryAfterMs`: then the caller gets the error and can requeue for that long instead of
 * holding a worker.
 */

export type RequestRepeatability = 'repeatable' | 'once';

export interface RetryPolicy {
  /** Attempts in total, the first included. Default 4. */
  maxAttempts: number;
  /** Backoff before the second attempt; it doubles per attempt. Default 250 ms. */
  baseDelayMs: number;
  /** Longest backoff. Default 8 s. */
  maxDelayMs: number;
  /** Longest `Retry-After` the client waits out by itself. Default 30 s. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 30_000 };

/** How an attempt ended, as far as retrying is concerned. */
export type AttemptOutcome =
  | { kind: 'answer'; status: number; retryAfterMs?: number }
  /** No answer; `reachedServer` is false only when the connection was never established. */
  | { kind: 'no-answer'; reachedServer: boolean };

/** 5xx answers that mean "try again later" rather than "your request is wrong". */
const TRANSIENT_SERVER_ERRORS = new Set([500, 502, 503, 504]);

/**
 * Milliseconds to wait before attempt `attempt + 1`, or undefined to give up. `random` (0 ≤ r < 1) spreads the backoff
 * over its upper half so that clients that failed together do not retry together.
 */
export function retryDelayMs(
  outcome: AttemptOutcome,
  repeatability: RequestRepeatability,
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const backoff = exponentialDelayMs(attempt, policy) * (0.5 + random() / 2);
  if (outcome.kind === 'no-answer') {
    return repeatability === 'repeatable' || !outcome.reachedServer ? backoff : undefined;
  }
  if (outcome.status === 429) {
    if (outcome.retryAfterMs === undefined) return backoff;
    return outcome.retryAfterMs <= policy.maxRetryAfterMs ? outcome.retryAfterMs : undefined;
  }
  if (TRANSIENT_SERVER_ERRORS.has(outcome.status) && repeatability === 'repeatable') return backoff;
  return undefined;
}
