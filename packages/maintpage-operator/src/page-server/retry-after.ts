/**
 * Seconds for `Retry-After`: the time left until maintenance ends when that is known and still ahead (rounded up, so
 * a client never retries before the end), otherwise the configured default.
 */
export function retryAfterSeconds(now: Date, until: Date | undefined, fallbackSeconds: number): number {
  const left = until === undefined ? 0 : until.getTime() - now.getTime();
  return left > 0 ? Math.ceil(left / 1000) : fallbackSeconds;
}
