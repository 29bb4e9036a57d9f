import type { AuthHeaders } from './cluster-auth.ts';
import type { Impersonation } from './user-entry.ts';

/**
 * The Impersonate-* headers of a kubeconfig user's `as`, `as-uid`, `as-groups` and `as-user-extra`. Groups and extra
 * values are lists (one header line each): the API server does not split a header line at commas.
 */
export function impersonationHeaders(impersonation: Impersonation): AuthHeaders {
  const headers: AuthHeaders = { 'impersonate-user': impersonation.user };
  if (impersonation.uid !== undefined) headers['impersonate-uid'] = impersonation.uid;
  if (impersonation.groups.length > 0) headers['impersonate-group'] = [...impersonation.groups];
  for (const [key, values] of impersonation.extra) {
    if (values.length > 0) headers[`impersonate-extra-${escapeExtraKey(key).toLowerCase()}`] = [...values];
  }
  return headers;
}

/** A header name holds only token characters: client-go percent-encodes every other byte of an extra key, and `%`. */
function escapeExtraKey(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const char = String.fromCharCode(byte);
    escaped += /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}
