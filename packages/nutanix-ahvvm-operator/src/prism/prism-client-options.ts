import type { PrismHttpOptions } from './prism-http.ts';

/** What the v3 and the v4 client are made with: the connection and `PrismHttp`'s options, which they share. */
export type PrismClientOptions = PrismHttpOptions;

/** How either client's `waitForTask` polls a task. */
export interface WaitForTaskOptions {
  /** Label for `prism_tasks_total{operation}`: create, update, power-off, power-on, delete … */
  operation: string;
  /** Give up after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** First wait between polls; it grows by half each time up to 5 s. Default 500 ms. */
  pollIntervalMs?: number;
}
