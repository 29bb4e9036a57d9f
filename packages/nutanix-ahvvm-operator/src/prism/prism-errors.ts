/**
 * Typed errors of the Prism client, so a reconciler can tell what happened without parsing messages: bad credentials
 * (`PrismAuthenticationError` → `Ready=False` reason `AuthenticationFailed`), an untrusted certificate
 * (`PrismTlsError`), no answer at all (`PrismTransportError`, saying whether the request may have been processed), or
 * an error answer (`PrismApiError`, with the reasons from the v3 error body). Messages name the request by method and
 * path; none carries credentials or headers.
 */

/** Where an error happened: the method and the concrete path below the v3 base path, e.g. `GET /vms/1f…`. */
export interface PrismRequestLabel {
  method: string;
  path: string;
}

export class PrismError extends Error {
  override name = 'PrismError';
  readonly method: string;
  readonly path: string;

  constructor(request: PrismRequestLabel, message: string, options?: ErrorOptions) {
    super(`${request.method} ${request.path}: ${message}`, options);
    this.method = request.method;
    this.path = request.path;
  }
}

/** One entry of the v3 error body's `message_list`. */
export interface PrismErrorMessage {
  reason: string;
  message: string;
  details?: Record<string, unknown>;
}

/** An HTTP error answer with the v3 error body (`{code, message_list: [{reason, message, details}], state: "ERROR"}`). */
export class PrismApiError extends PrismError {
  override name = 'PrismApiError';
  readonly status: number;
  readonly messages: readonly PrismErrorMessage[];

  constructor(request: PrismRequestLabel, status: number, messages: readonly PrismErrorMessage[]) {
    super(request, `HTTP ${status} ${describeMessages(messages)}`);
    this.status = status;
    this.messages = messages;
  }

  /** The first `reason`, e.g. `ENTITY_NOT_FOUND`, `INVALID_REQUEST`, `CONCURRENT_REQUESTS_NOT_ALLOWED`. */
  get reason(): string | undefined {
    return this.messages[0]?.reason;
  }
}

/** 429 still, after the retries the client allows itself; `retryAfterMs` is what the server last asked for. */
export class PrismRateLimitedError extends PrismApiError {
  override name = 'PrismRateLimitedError';
  readonly retryAfterMs: number | undefined;

  constructor(request: PrismRequestLabel, messages: readonly PrismErrorMessage[], retryAfterMs: number | undefined) {
    super(request, 429, messages);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The Prism Central does not serve the API something the AhvVm asks for needs (a project by name needs v3's projects
 * list, and the PC answers v3 paths with 404): the user can change the AhvVm, not wait for Prism.
 */
export class PrismApiMissingError extends PrismError {
  override name = 'PrismApiMissingError';
  /** The condition reason a reconciler reports for this error. */
  readonly conditionReason = 'NotSupportedByPrismApi';
}

/** Prism refused the credentials (HTTP 401): an API key, or Basic credentials also after logging in afresh. */
export class PrismAuthenticationError extends PrismError {
  override name = 'PrismAuthenticationError';
  /** The condition reason a reconciler reports for this error. */
  readonly conditionReason = 'AuthenticationFailed';

  /**
   * `refused` names the credentials without their secret (`PrismAuthentication.describe()`): `the credentials of
   * user "ops"`, `the API key in PRISM_API_KEY`.
   */
  constructor(request: PrismRequestLabel, refused: string) {
    super(request, `Prism Central refused ${refused} (HTTP 401)`);
  }
}

/** The server's certificate was not trusted, or did not name the host. Retrying cannot help; configuration can. */
export class PrismTlsError extends PrismError {
  override name = 'PrismTlsError';
  readonly conditionReason = 'TLSVerificationFailed';
  /** Node's code, e.g. `SELF_SIGNED_CERT_IN_CHAIN`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `ERR_TLS_CERT_ALTNAME_INVALID`. */
  readonly code: string;

  constructor(request: PrismRequestLabel, code: string, cause: unknown) {
    super(
      request,
      `TLS verification of Prism Central failed (${code}); set PRISM_CA_CERT to the PEM of the CA that signed its certificate`,
      { cause },
    );
    this.code = code;
  }
}

/**
 * No answer: the connection failed, was dropped, or timed out. `mayHaveBeenProcessed` is false only when the request
 * provably never reached the server (the connection was refused or never established); otherwise a create or update
 * may have happened, and the caller must re-read before deciding anything.
 */
export class PrismTransportError extends PrismError {
  override name = 'PrismTransportError';
  readonly code: string;
  readonly mayHaveBeenProcessed: boolean;

  constructor(request: PrismRequestLabel, code: string, mayHaveBeenProcessed: boolean, cause: unknown) {
    super(request, `no answer from Prism Central (${code})`, { cause });
    this.code = code;
    this.mayHaveBeenProcessed = mayHaveBeenProcessed;
  }
}

/** A task did not finish within the time the caller allowed. */
export class PrismTaskTimeoutError extends PrismError {
  override name = 'PrismTaskTimeoutError';
  readonly taskUuid: string;
  readonly lastStatus: string;

  constructor(taskUuid: string, lastStatus: string, timeoutMs: number) {
    super({ method: 'GET', path: `/tasks/${taskUuid}` }, `task still ${lastStatus} after ${timeoutMs} ms`);
    this.taskUuid = taskUuid;
    this.lastStatus = lastStatus;
  }
}

/**
 * The `message_list` of a v3 error body, or the `data.error` AppMessages of a v4 one (`errorGroup` as the reason, the
 * `code` in `details`). Bodies of neither shape (a gateway's HTML page, the plain-text 401) give one message with
 * reason `HTTP_<status>` and the start of the text.
 */
export function parsePrismErrorBody(status: number, text: string): PrismErrorMessage[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const appMessages = (body as { data?: { error?: unknown } } | undefined)?.data?.error;
  if (Array.isArray(appMessages) && appMessages.length > 0) {
    return appMessages.map((entry: unknown) => {
      const { errorGroup, message, code } = (entry ?? {}) as { errorGroup?: unknown; message?: unknown; code?: unknown };
      return {
        reason: typeof errorGroup === 'string' ? errorGroup : `HTTP_${status}`,
        message: typeof message === 'string' ? message : '',
        ...(typeof code === 'string' ? { details: { code } } : {}),
      };
    });
  }
  const list = (body as { message_list?: unknown } | undefined)?.message_list;
  if (Array.isArray(list) && list.length > 0) {
    return list.map((entry: unknown) => {
      const { reason, message, details } = (entry ?? {}) as { reason?: unknown; message?: unknown; details?: unknown };
      return {
        reason: typeof reason === 'string' ? reason : `HTTP_${status}`,
        message: typeof message === 'string' ? message : '',
        ...(typeof details === 'object' && details !== null ? { details: details as Record<string, unknown> } : {}),
      };
    });
  }
  const snippet = text.trim().replace(/\s+/g, ' ').slice(0, 200);
  return [{ reason: `HTTP_${status}`, message: snippet }];
}

function describeMessages(messages: readonly PrismErrorMessage[]): string {
  return messages
    .map(({ reason, message, details }) => {
      const detail = details === undefined || Object.keys(details).length === 0 ? '' : ` ${JSON.stringify(details)}`;
      return `${reason}: ${message}${detail}`;
    })
    .join('; ');
}
