// Counts of the Prism API traffic a simulator has seen, for tests that assert on client behaviour: how many
// creates were sent, how many requests ran at once, which calls failed how. Admin (/__sim) traffic is not
// counted.

import type { AuthenticatedBy } from './auth.ts';
import type { SimulatedEndpoint } from './prism-endpoints.ts';

/** `dropped` when the connection was destroyed instead of answered. */
export type RequestOutcome = number | 'dropped';

export interface RequestCount {
  method: string;
  /** The endpoint name, or `unknown` for paths the simulator does not serve. */
  endpoint: SimulatedEndpoint | 'unknown';
  outcome: RequestOutcome;
  count: number;
}

/** One request, in the order the simulator answered them (`PrismSimulator.requestLog()`). */
export interface LoggedRequest {
  method: string;
  endpoint: SimulatedEndpoint | 'unknown';
  /** Path and query as sent (still percent-encoded). */
  path: string;
  outcome: RequestOutcome;
  /** Whether the request carried an `If-Match` header. */
  ifMatch: boolean;
  /** What let the request in: an API key, a session cookie or Basic credentials; absent when it was not let in. */
  authenticatedBy?: AuthenticatedBy;
}

/** How many of the latest requests the log keeps, so a long-running simulator does not grow without bound. */
export const REQUEST_LOG_LIMIT = 10_000;

export class RequestStats {
  private readonly counts = new Map<string, RequestCount>();
  private readonly log: LoggedRequest[] = [];
  private inFlight = 0;
  private peak = 0;

  /** Marks a request as started; call the returned function once when it is over. */
  begin(): () => void {
    this.inFlight += 1;
    this.peak = Math.max(this.peak, this.inFlight);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight -= 1;
    };
  }

  record(method: string, endpoint: SimulatedEndpoint | 'unknown', outcome: RequestOutcome, request: { path: string; ifMatch: boolean; authenticatedBy?: AuthenticatedBy } = { path: '', ifMatch: false }): void {
    this.log.push({ method, endpoint, path: request.path, outcome, ifMatch: request.ifMatch, ...(request.authenticatedBy === undefined ? {} : { authenticatedBy: request.authenticatedBy }) });
    if (this.log.length > REQUEST_LOG_LIMIT) this.log.splice(0, this.log.length - REQUEST_LOG_LIMIT);
    const key = `${method} ${endpoint} ${String(outcome)}`;
    const entry = this.counts.get(key) ?? { method, endpoint, outcome, count: 0 };
    entry.count += 1;
    this.counts.set(key, entry);
  }

  requestCounts(): RequestCount[] {
    return [...this.counts.values()].map((entry) => ({ ...entry }));
  }

  /** The latest requests (up to REQUEST_LOG_LIMIT), oldest first. */
  requestLog(): LoggedRequest[] {
    return this.log.map((entry) => ({ ...entry }));
  }

  /** Requests to `endpoint`, whatever their outcome. */
  total(endpoint: SimulatedEndpoint): number {
    let total = 0;
    for (const entry of this.counts.values()) if (entry.endpoint === endpoint) total += entry.count;
    return total;
  }

  get inFlightRequests(): number {
    return this.inFlight;
  }

  get peakConcurrentRequests(): number {
    return this.peak;
  }
}
