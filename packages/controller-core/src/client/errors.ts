/**
 * metav1.Status reasons (k8s.io/apimachinery/pkg/apis/meta/v1 `StatusReason`), the machine-readable "why" of a failed
 * request. `Gone` is what a 410 without a Status body maps to; the API server itself says `Expired`.
 */
export type StatusReason =
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Unknown';

/** The parts of a metav1.Status body we read. */
export interface StatusBody {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number; causes?: { reason?: string; message?: string; field?: string }[] };
}

/** The reason apimachinery's `NewGenericServerResponse` gives a status code when the body carries none. */
function reasonForStatusCode(status: number): StatusReason {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'ServerTimeout';
    default:
      return 'Unknown';
  }
}

/** A request the API server answered with an error status (or a watch ERROR event carrying a Status). */
export class ApiError extends Error {
  /** HTTP status code (from the Status body's `code` for watch ERROR events). */
  readonly status: number;
  /** A {@link StatusReason}; a reason from a newer server passes through as sent. */
  readonly reason: string;
  /** Seconds the server asked us to wait (`Retry-After` header or `details.retryAfterSeconds`), if it said. */
  readonly retryAfterSeconds: number | undefined;
  readonly details: StatusBody['details'];
  /** What was asked, e.g. `GET /api/v1/namespaces/x/configmaps/y`. */
  readonly request: string;

  constructor(init: { status: number; body: unknown; request: string; retryAfterSeconds?: number | undefined }) {
    const status = asStatusBody(init.body);
    const message = status?.message ?? (typeof init.body === 'string' && init.body !== '' ? init.body : `HTTP ${init.status}`);
    super(`${init.request}: ${message}`);
    this.name = 'ApiError';
    this.status = init.status;
    this.reason = status?.reason !== undefined && status.reason !== '' ? status.reason : reasonForStatusCode(init.status);
    this.details = status?.details;
    this.retryAfterSeconds = init.retryAfterSeconds ?? status?.details?.retryAfterSeconds;
    this.request = init.request;
  }
}

function asStatusBody(body: unknown): StatusBody | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const candidate = body as StatusBody;
  return candidate.kind === 'Status' || typeof candidate.reason === 'string' ? candidate : undefined;
}

function hasReason(error: unknown, status: number, ...reasons: string[]): boolean {
  if (!(error instanceof ApiError)) return false;
  return reasons.includes(error.reason) || (error.reason === 'Unknown' && error.status === status);
}

export function isNotFound(error: unknown): boolean {
  return hasReason(error, 404, 'NotFound');
}

/** A write lost an optimistic-concurrency race (stale resourceVersion or failed precondition): re-read and retry. */
export function isConflict(error: unknown): boolean {
  return hasReason(error, 409, 'Conflict');
}

export function isAlreadyExists(error: unknown): boolean {
  // No status-code fallback: a bare 409 is a conflict (apimachinery decides the same way).
  return error instanceof ApiError && error.reason === 'AlreadyExists';
}

/** The resourceVersion is too old (compacted): list again. apimachinery's `IsResourceExpired` and `IsGone` together. */
export function isGone(error: unknown): boolean {
  return hasReason(error, 410, 'Gone', 'Expired');
}

export function isForbidden(error: unknown): boolean {
  return hasReason(error, 403, 'Forbidden');
}

export function isUnauthorized(error: unknown): boolean {
  return hasReason(error, 401, 'Unauthorized');
}

export function isInvalid(error: unknown): boolean {
  return hasReason(error, 422, 'Invalid');
}

export function isTooManyRequests(error: unknown): boolean {
  return hasReason(error, 429, 'TooManyRequests');
}
