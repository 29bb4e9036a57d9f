import {
  PrismApiError,
  PrismApiMissingError,
  PrismAuthenticationError,
  PrismError,
  PrismRateLimitedError,
  PrismTlsError,
  PrismTransportError,
} from '../prism/prism-errors.ts';
import { Reason } from '../desired/desired-ahvvm-status.ts';

/** What a failed Prism call means for the reconcile that made it. */
export type PrismFailure =
  /** The operator's credentials or certificate trust are wrong: every resource is affected (see PrismAccessGate). */
  | { kind: 'access'; reason: string; message: string }
  /** Prism asked for a pause longer than the client waits out by itself. */
  | { kind: 'rate-limited'; reason: string; message: string; retryAfterMs: number | undefined }
  /** No answer, or a server error that retries did not get past: try again later. */
  | { kind: 'unavailable'; reason: string; message: string }
  /** Prism refused the request itself (4xx): try again later, and say what it said. */
  | { kind: 'refused'; reason: string; message: string };

/** Undefined for errors that are not Prism's (the API server's, or a bug), which the controller retries as usual. */
export function classifyPrismFailure(error: unknown): PrismFailure | undefined {
  if (error instanceof PrismAuthenticationError || error instanceof PrismTlsError) {
    return { kind: 'access', reason: error.conditionReason, message: error.message };
  }
  if (error instanceof PrismRateLimitedError) {
    return { kind: 'rate-limited', reason: Reason.RateLimited, message: error.message, retryAfterMs: error.retryAfterMs };
  }
  if (error instanceof PrismTransportError || (error instanceof PrismApiError && error.status >= 500)) {
    return { kind: 'unavailable', reason: Reason.PrismUnavailable, message: error.message };
  }
  if (error instanceof PrismApiMissingError) return { kind: 'refused', reason: error.conditionReason, message: error.message };
  if (error instanceof PrismError) return { kind: 'refused', reason: Reason.PrismRequestFailed, message: error.message };
  return undefined;
}
