import { createHash, createHmac } from 'node:crypto';

/**
 * One S3 request signed with AWS Signature Version 4, for what testkit itself does with SeaweedFS (create the bucket)
 * and for tests that look at the store from outside the code under test. testkit keeps no S3 SDK: this is the whole
 * protocol it needs, and the tests check it against SeaweedFS's own verification of signatures.
 */

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface S3RequestOptions {
  /** e.g. http://127.0.0.1:8333 */
  endpoint: string;
  region: string;
  credentials: S3Credentials;
  method: 'GET' | 'PUT' | 'DELETE' | 'HEAD' | 'POST';
  /** Path-style: `/<bucket>` or `/<bucket>/<key>`, each segment as it is (encoded here). */
  path: string;
  query?: Record<string, string>;
  body?: Uint8Array;
}

const sha256Hex = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Uint8Array | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 wants it: only unreserved characters stay as they are. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export async function signedS3Request(options: S3RequestOptions): Promise<Response> {
  const { endpoint, region, credentials, method, body } = options;
  const url = new URL(endpoint);
  const canonicalPath = options.path.split('/').map(encodeRfc3986).join('/');
  const canonicalQuery = Object.entries(options.query ?? {})
    .map(([k, v]) => [encodeRfc3986(k), encodeRfc3986(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(body ?? '');
  const headers: Record<string, string> = { host: url.host, 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate };
  const signedHeaders = Object.keys(headers).sort().join(';');
  const canonicalRequest = [
    method,
    canonicalPath,
    canonicalQuery,
    ...Object.keys(headers).sort().map((name) => `${name}:${headers[name]}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = ['s3', 'aws4_request'].reduce<Buffer>(
    (key, part) => hmac(key, part),
    hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region),
  );
  const signature = hmac(signingKey, stringToSign).toString('hex');
  const authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return fetch(`${url.origin}${canonicalPath}${canonicalQuery === '' ? '' : `?${canonicalQuery}`}`, {
    method,
    // fetch writes the Host header itself, from the same URL.
    headers: { 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate, authorization },
    ...(body === undefined ? {} : { body }),
  });
}
