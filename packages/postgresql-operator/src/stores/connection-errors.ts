/**
 * What Node's error codes say about a store that could not be talked to, for messages that say what to check: the
 * same words whether the store is a bucket or the backup store service.
 */

// Node's and the HTTP handlers' codes for "no answer from that address".
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
// Node's codes for a certificate it did not accept: untrusted issuer, self-signed, expired, wrong host name.
const TLS_UNTRUSTED = /CERT|ISSUER|SELF_SIGNED|LEAF_SIGNATURE/;

export const isUnreachable = (code: string | undefined): boolean => code !== undefined && UNREACHABLE.has(code);
export const isUntrustedCertificate = (code: string | undefined): boolean => code !== undefined && TLS_UNTRUSTED.test(code);
