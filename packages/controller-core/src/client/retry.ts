import { isConflict } from './errors.ts';

/**
 * When the API server answers 429 (API Priority & Fairness rejected the request: it was not processed) or a 5xx with a
 * `Retry-After` header, the client waits as told and tries again, as client-go's `checkWait` does. client-go allows 10
 * retries of any length; we stop earlier so a reconcile is not held for minutes — the work queue's backoff takes over.
 */
export const RETRY_AFTER_LIMITS = {
  /** Retries after the first attempt. */
  maxRetries: 4,
  /** Longest single wait, whatever the server asks. */
  maxWaitSeconds: 10,
} as const;

/**
 * How long to wait before retrying, or undefined to give up. `idempotent` requests (GET, PUT, DELETE, merge and
 * strategic-merge patches, server-side apply) retry on 429 and 5xx; others (POST, JSON patch) only on 429, which the
 * server guarantees it did not process. As in client-go, only an answer carrying `Retry-After` is retried.
 */
export function retryAfterWaitMs(answer: {
  status: number;
  retryAfterSeconds: number | undefined;
  idempotent: boolean;
  retriesSoFar: number;
}): number | undefined {
  if (answer.retryAfterSeconds === undefined || answer.retriesSoFar >= RETRY_AFTER_LIMITS.maxRetries) return undefined;
  const retryable = answer.status === 429 || (answer.status >= 500 && answer.idempotent);
  if (!retryable) return undefined;
  return Math.min(Math.max(answer.retryAfterSeconds, 0), RETRY_AFTER_LIMITS.maxWaitSeconds) * 1000;
}

/** A `Retry-After` header in seconds; HTTP-date values (which the API server never sends) are ignored. */
export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

export interface RetryOnConflictOptions {
  /** Attempts in total, the first included. Default 5 (client-go `retry.DefaultRetry.Steps`). */
  attempts?: number;
  /** Wait before the second attempt. Default 10 ms. */
  delayMs?: number;
  /** Multiplier of the wait per attempt. Default 1 (a constant wait). */
  factor?: number;
  /** Each wait is lengthened by up to this fraction, at random. Default 0.1. */
  jitter?: number;
}

/**
 * Runs `fn` again while it fails with a 409 Conflict, like client-go's `retry.RetryOnConflict(retry.DefaultRetry, fn)`.
 * `fn` must read the object afresh on each call (a retry with the same stale resourceVersion conflicts again). Any
 * other error, or the last conflict once the attempts are spent, is thrown.
 */
export async function retryOnConflict<R>(fn: () => Promise<R>, options: RetryOnConflictOptions = {}): Promise<R> {
  const { attempts = 5, delayMs = 10, factor = 1, jitter = 0.1 } = options;
  let wait = delayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, wait * (1 + Math.random() * jitter)));
    wait *= factor;
  }
}
