export interface WaitForOptions {
  /** What is being waited for, for the error message (e.g. "pod web ready"). */
  what: string;
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** How often to look (default 100 ms). */
  intervalMs?: number;
}

/**
 * Polls `check` until it returns a value other than undefined/false and returns that value. Tests wait on
 * observable conditions with a bound, never on fixed sleeps; on time-out the last observation is reported.
 */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, options: WaitForOptions): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? `: last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${options.timeoutMs ?? 60_000} ms waiting for ${options.what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
