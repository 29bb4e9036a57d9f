// The shapes every v4 answer is built from: objects marked with their `$objectType` (the SDKs choose a one-of's Go
// type by it) and a `$reserved` object (where the SDK copies a GET's ETag header), and the envelope of a one-entity
// answer.

import { V4_RESERVED, responseMetadata } from './v4-errors.ts';

/** A v4.2 model object: its `$objectType`, `$reserved` (`COMMON_RESERVED` for a `common.v1` one), then its fields. */
export function v4Object(type: string, fields: Record<string, unknown>, reserved: Readonly<Record<string, string>> = V4_RESERVED): Record<string, unknown> {
  return { $objectType: type, $reserved: { ...reserved }, ...fields };
}

/** The answer of a call that returns one entity (`data`) of `dataType`: `…ApiResponse` with its metadata and self link. */
export function v4Envelope(responseType: string, dataType: string, data: unknown, url: URL): Record<string, unknown> {
  return {
    $objectType: responseType,
    $reserved: { ...V4_RESERVED },
    $dataItemDiscriminator: dataType,
    data,
    metadata: responseMetadata({ hasError: false, paginated: false, links: [{ href: url.toString(), rel: 'self' }] }),
  };
}
