import { isUnreachable, isUntrustedCertificate } from './connection-errors.ts';
import { BackupStoreError } from './store.ts';

/**
 * Turns what the S3 client throws into errors that say what to fix, for the on-call person reading a condition or a
 * log line. The secret access key is never part of a message: only the access key id (which S3 itself prints) is.
 */

/** What went wrong, for conditions and tests; the message says it for people. */
export type S3Problem = 'CredentialsRejected' | 'AccessDenied' | 'BucketMissing' | 'Unreachable' | 'TlsUntrusted' | 'NotFound' | 'Failed';

export class S3StoreError extends BackupStoreError {
  override name = 'S3StoreError';
  readonly problem: S3Problem;

  constructor(problem: S3Problem, message: string, options?: ErrorOptions) {
    super(message, options);
    this.problem = problem;
  }
}

/** Where requests went, for messages. */
export interface S3Location {
  /** The endpoint URL, or a description of AWS's for the region. */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
}


interface ClientError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** `S3 <what> of <object> ...` failed: a message that names the store and says what to check. */
export function describeS3Error(error: unknown, what: string, where: S3Location): S3StoreError | Error {
  if (error instanceof S3StoreError) return error;
  // The signal's reason (a reconcile time-out, a stop) is passed on as it is.
  if ((error as ClientError | undefined)?.name === 'AbortError') return error as Error;
  const e = (error ?? {}) as ClientError;
  const detail = `${e.name ?? 'Error'}${e.code !== undefined && e.code !== e.name ? ` ${e.code}` : ''}: ${e.message ?? String(error)}`;
  const at = `S3 at ${where.endpoint}`;
  const problem = ((): [S3Problem, string, boolean?] => {
    switch (e.name) {
      case 'InvalidAccessKeyId':
        return ['CredentialsRejected', `${at} does not know the access key id ${where.accessKeyId}: check accessKeyId in the credentials`];
      case 'SignatureDoesNotMatch':
        return ['CredentialsRejected', `${at} rejected the signature of access key id ${where.accessKeyId}: the secretAccessKey in the credentials is not that key's secret`];
      case 'AccessDenied':
        return ['AccessDenied', `${at} denied access key id ${where.accessKeyId} ${what} in bucket ${where.bucket}: grant it list, get, put and delete of objects and multipart uploads under the prefix`];
      case 'NoSuchBucket':
        return ['BucketMissing', `${at} has no bucket ${where.bucket}: create it, or fix the bucket name`];
      case 'NoSuchKey':
      case 'NotFound':
        return ['NotFound', `${at}: no such object`];
    }
    // These two quote the client's own words as their cause, so the detail would only say it again.
    if (isUntrustedCertificate(e.code)) {
      return ['TlsUntrusted', `${at}: the server's TLS certificate was not accepted (${e.code ?? ''}: ${e.message ?? ''}): if the store uses a private CA, give its certificate as the CA bundle`, false];
    }
    if (isUnreachable(e.code) || e.name === 'TimeoutError') {
      return ['Unreachable', `cannot reach ${at} (${e.message ?? e.code ?? e.name ?? ''}): check the endpoint URL, and that the store is up and reachable from this pod`, false];
    }
    return ['Failed', `${at}: ${what} in bucket ${where.bucket} failed`];
  })();
  const [kind, text, withDetail = true] = problem;
  return new S3StoreError(kind, `${text} (${what}${withDetail ? `; ${detail}` : ''})`, { cause: error });
}
