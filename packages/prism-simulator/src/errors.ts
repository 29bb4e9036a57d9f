// The v3 error model: every error body carries `state: "ERROR"`, because prism-go-client
// treats a non-2xx JSON body whose `state` is anything else as a success.

export const API_VERSION = '3.1';

/** The message every schema error carries on the real API. */
export const REQUEST_NOT_PROCESSED = 'Request could not be processed.';

/** jsonschema-style details: the path of the offending value -> what is wrong with it. */
export type ErrorDetails = Record<string, string[]>;

export function addDetail(details: ErrorDetails, path: string, message: string): void {
  const messages = details[path] ?? [];
  messages.push(message);
  details[path] = messages;
}

export interface PrismMessage {
  reason: string;
  message: string;
  details?: ErrorDetails;
}

export interface PrismErrorBody {
  api_version: string;
  code: number;
  /** The kind of entity the request addressed; absent when it addressed none (the real API omits it too, TF #36). */
  kind?: string;
  message_list: PrismMessage[];
  state: 'ERROR';
}

/** An error a request handler throws; the server turns it into the status code and body above. */
export class PrismApiError extends Error {
  readonly status: number;
  readonly reason: string;
  /** Undefined for a request that addressed no entity. */
  readonly kind: string | undefined;
  readonly details: ErrorDetails | undefined;

  /** `kind` defaults to `vm`; pass `kind: undefined` explicitly for an error that addresses no entity. */
  constructor(status: number, reason: string, message: string, options: { kind?: string | undefined; details?: ErrorDetails } = {}) {
    super(message);
    this.name = 'PrismApiError';
    this.status = status;
    this.reason = reason;
    this.kind = 'kind' in options ? options.kind : 'vm';
    this.details = options.details;
  }

  toBody(): PrismErrorBody {
    return errorBody(this.status, this.kind, { reason: this.reason, message: this.message, ...(this.details ? { details: this.details } : {}) });
  }
}

export function errorBody(code: number, kind: string | undefined, message: PrismMessage): PrismErrorBody {
  return { api_version: API_VERSION, code, ...(kind === undefined ? {} : { kind }), message_list: [message], state: 'ERROR' };
}

/** 422 INVALID_REQUEST, the real API's answer to a body that breaks the schema. */
export function invalidRequest(details: ErrorDetails, kind = 'vm'): PrismApiError {
  return new PrismApiError(422, 'INVALID_REQUEST', REQUEST_NOT_PROCESSED, { kind, details });
}

export function vmNotFound(uuid: string): PrismApiError {
  return new PrismApiError(404, 'ENTITY_NOT_FOUND', `VM with uuid ${uuid} does not exist.`);
}

/**
 * The edit-conflict answer. The wording is the one public reports show for CAS mismatches on v3 PUTs; the
 * exact 409 text is unverified.
 */
export const EDIT_CONFLICT_REASON = 'CONCURRENT_REQUESTS_NOT_ALLOWED';
export const EDIT_CONFLICT_MESSAGE = 'Edit conflict: please retry change. Entity CAS version mismatch.';
