import { exponentialDelayMs } from '../queue/item-backoff.ts';
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

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** The three forms of HTTP-date a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate, RFC 850 and asctime. */
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * An HTTP-date as epoch ms, or undefined when it is none. Only the three forms are let through to Date.parse, which on
 * its own takes almost anything ("1", "-5"), in local time. asctime carries no zone and means GMT.
 */
function parseHttpDate(value: string): number | undefined {
  let ms = Number.NaN;
  if (IMF_FIXDATE.test(value) || RFC850_DATE.test(value)) ms = Date.parse(value);
  else if (ASCTIME_DATE.test(value)) ms = Date.parse(`${value} GMT`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A `Retry-After` header (RFC 9110 §10.2.3) as the seconds to wait: delta-seconds, or an HTTP-date less `now` (0 once
 * it has passed; a fraction of a second left counts as a whole one). Undefined when absent, negative or unreadable. Of
 * a header sent twice, the first. The one parser of the tree: the API client and the Prism client both use it.
 */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = parseHttpDate(value);
  return date === undefined ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
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
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts) throw error;
    }
    const wait = exponentialDelayMs(attempt, { baseDelayMs: delayMs, maxDelayMs: Number.POSITIVE_INFINITY, factor });
    await new Promise((resolve) => setTimeout(resolve, wait * (1 + Math.random() * jitter)));
  }
}
