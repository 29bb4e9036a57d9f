// The v4 error model. An error answer is an `…ApiResponse` whose `data` is an `ErrorResponse` holding a list of
// `AppMessage`s (`errorGroup`, `code`, `message`, `severity`), each object marked with its `$objectType` — the SDKs
// pick the Go type of a `data` by that field, and would decode an unmarked VM as an error. The namespace (`vmm`,
// `prism`) names the error types: `vmm.v4.error.AppMessage`, `prism.v4.error.AppMessage`.
//
// Codes and groups known from public material: VMM-30100 VM_NOT_FOUND (ANS PR #1147), PLAT-10003
// RATE_LIMIT_EXCEEDED, PLAT-10004 MISSING_ETAG_HEADER, PLAT-10005 "Invalid eTag header" (412). The others are the
// simulator's own and marked as such in the README.

import { PrismApiError } from './errors.ts';
import type { HttpReply } from './http-io.ts';

/** `$reserved` of the v4.2 models (`$fv` is the model's format version, as the SDK's constructors set it). */
export const V4_RESERVED = { $fv: 'v4.r2' } as const;
export const COMMON_RESERVED = { $fv: 'v1.r0' } as const;

export interface V4Message {
  errorGroup: string;
  code: string;
  message: string;
}

export class V4ApiError extends Error {
  readonly status: number;
  readonly errorGroup: string;
  readonly code: string;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, errorGroup: string, code: string, message: string, headers?: Record<string, string>) {
    super(message);
    this.name = 'V4ApiError';
    this.status = status;
    this.errorGroup = errorGroup;
    this.code = code;
    this.headers = headers;
  }
}

/** ApiResponseMetadata with the `hasError` / `isPaginated` flags every v4 answer carries. */
export function responseMetadata(options: { hasError: boolean; paginated: boolean; links?: { href: string; rel: string }[]; totalAvailableResults?: number }): Record<string, unknown> {
  const flag = (name: string, value: boolean): Record<string, unknown> => ({ $objectType: 'common.v1.config.Flag', $reserved: COMMON_RESERVED, name, value });
  return {
    $objectType: 'common.v1.response.ApiResponseMetadata',
    $reserved: COMMON_RESERVED,
    flags: [flag('hasError', options.hasError), flag('isPaginated', options.paginated)],
    ...(options.links ? { links: options.links.map((link) => ({ $objectType: 'common.v1.response.ApiLink', $reserved: COMMON_RESERVED, ...link })) } : {}),
    ...(options.totalAvailableResults === undefined ? {} : { totalAvailableResults: options.totalAvailableResults }),
  };
}

/**
 * The body of a v4 error. `responseType` is the `$objectType` of the operation's answer (e.g.
 * `vmm.v4.ahv.config.GetVmApiResponse`); gateway errors that precede any operation carry none.
 */
export function v4ErrorBody(namespace: string, messages: readonly V4Message[], responseType?: string): Record<string, unknown> {
  return {
    ...(responseType === undefined ? {} : { $objectType: responseType }),
    $reserved: V4_RESERVED,
    $dataItemDiscriminator: `${namespace}.v4.error.ErrorResponse`,
    data: {
      $objectType: `${namespace}.v4.error.ErrorResponse`,
      $reserved: V4_RESERVED,
      $errorItemDiscriminator: `List<${namespace}.v4.error.AppMessage>`,
      error: messages.map((m) => ({
        $objectType: `${namespace}.v4.error.AppMessage`,
        $reserved: V4_RESERVED,
        message: m.message,
        severity: 'ERROR',
        code: m.code,
        locale: 'en_US',
        errorGroup: m.errorGroup,
      })),
    },
    metadata: responseMetadata({ hasError: true, paginated: false }),
  };
}

export function v4ErrorReply(namespace: string, error: V4ApiError, responseType?: string): HttpReply {
  return {
    status: error.status,
    json: v4ErrorBody(namespace, [{ errorGroup: error.errorGroup, code: error.code, message: error.message }], responseType),
    ...(error.headers ? { headers: error.headers } : {}),
  };
}

/** A v3 error raised by the shared VM code (not found, edit conflict, unknown category…), in v4 terms. */
export function fromV3Error(error: PrismApiError): V4ApiError {
  if (error.reason === 'ENTITY_NOT_FOUND' && error.kind === 'vm') return new V4ApiError(404, 'VM_NOT_FOUND', 'VMM-30100', error.message);
  const status = error.status === 422 ? 400 : error.status;
  const detail = error.details ? ` ${Object.entries(error.details).map(([path, messages]) => `${path}: ${messages.join('; ')}`).join(', ')}` : '';
  return new V4ApiError(status, error.reason, `VMM-${status === 409 ? '30400' : '30000'}`, `${error.message}${detail}`);
}

export function vmNotFoundV4(extId: string): V4ApiError {
  return new V4ApiError(404, 'VM_NOT_FOUND', 'VMM-30100', `Failed to perform the operation on the VM with UUID '${extId}', because it is not found.`);
}

export function invalidArgument(message: string): V4ApiError {
  return new V4ApiError(400, 'INVALID_ARGUMENT', 'VMM-20005', message);
}
