import type { IncomingMessage, ServerResponse } from 'node:http';
import { PrismApiError, REQUEST_NOT_PROCESSED } from './errors.ts';

/**
 * What a handler answers. Handlers build replies instead of writing to the socket so that a fault injected
 * "after handling" can still throw the finished reply away (see faults.ts).
 */
export interface HttpReply {
  status: number;
  /** Serialised as JSON (including `null`, which the real DELETE /idempotence_identifiers returns). */
  json?: unknown;
  /** A non-JSON body, e.g. the real API's 401. */
  text?: string;
  headers?: Record<string, string | string[]>;
}

/** Headers every recorded Prism Central response carries. */
const PRISM_HEADERS = { server: 'envoy', 'x-ntnx-env': 'pc', 'x-ntnx-product': 'pc.2024.3.0.1' };

/** Cloud-init user data may be 128000 characters of base64; anything far bigger is not a VM spec. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function writeReply(res: ServerResponse, reply: HttpReply): void {
  const headers: Record<string, string | string[]> = { ...PRISM_HEADERS, ...reply.headers };
  let payload = '';
  if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if ('json' in reply) {
    payload = JSON.stringify(reply.json);
    headers['content-type'] = 'application/json';
  }
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/**
 * Reads a JSON request body. An empty body reads as `undefined` (POST /vms/list may be sent without one);
 * malformed JSON is the real API's 400 INVALID_REQUEST.
 */
export async function readJsonBody(req: IncomingMessage, kind: string | undefined): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new PrismApiError(413, 'INVALID_REQUEST', 'Request body is too large.', { kind });
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new PrismApiError(400, 'INVALID_REQUEST', REQUEST_NOT_PROCESSED, { kind, details: { '': [detail] } });
  }
}
