import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { StoredData } from './store.ts';

/**
 * Streams bytes of unknown length into one S3 object as a multipart upload, holding at most two parts in memory: the
 * one being uploaded and the one being filled from the source (so pg_dump keeps writing while a part is sent). Nothing
 * touches the local disk. The object appears only when the upload completes; a failed or aborted upload is aborted on
 * the server, so its parts are neither visible nor kept.
 *
 * The size and SHA-256 are taken of the parts as they are sent, and each part goes with its MD5 (Content-MD5, which
 * the store checks on receipt). S3 names a completed object by an ETag made of those MD5s: the MD5 of a single PUT's
 * body, or for a multipart upload the MD5 of its parts' MD5s followed by `-<part count>`. When the store answers with
 * the ETag worked out here, it holds exactly the bytes that were hashed, and reading them back would only repeat that.
 * Stores whose ETags are something else (AWS with SSE-KMS or SSE-C encryption) answer with another one, and the caller
 * reads the object back instead (read-back.ts).
 */

/** S3's smallest part size, for every part but the last. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** S3's largest part count: the largest object is `MAX_PARTS * partBytes`. */
export const MAX_PARTS = 10_000;

export interface StreamUpload {
  client: S3Client;
  bucket: string;
  key: string;
  source: AsyncIterable<Uint8Array>;
  /** Size of every part but the last; at least {@link MIN_PART_BYTES}. */
  partBytes: number;
  contentType: string;
  signal?: AbortSignal;
}

interface Part {
  data: Buffer;
  /** The source ended with this part; it may be shorter than the others, or empty. */
  last: boolean;
}

const md5Of = (data: Buffer): Buffer => createHash('md5').update(data).digest();
/** An ETag without the quotes S3 puts around it. */
const unquoted = (etag: string | undefined): string => (etag ?? '').replace(/^"|"$/g, '');

/** Cuts `source` into parts of exactly `partBytes`; the last part holds the rest and is marked. */
async function* partsOf(source: AsyncIterable<Uint8Array>, partBytes: number): AsyncGenerator<Part> {
  // A part handed out is being uploaded while the next one fills, so each part gets its own buffer.
  let buffer = Buffer.allocUnsafe(partBytes);
  let filled = 0;
  for await (const chunk of source) {
    for (let offset = 0; offset < chunk.byteLength; ) {
      const copied = Buffer.from(chunk.buffer, chunk.byteOffset + offset, chunk.byteLength - offset).copy(buffer, filled);
      filled += copied;
      offset += copied;
      if (filled === partBytes) {
        yield { data: buffer, last: false };
        buffer = Buffer.allocUnsafe(partBytes);
        filled = 0;
      }
    }
  }
  yield { data: buffer.subarray(0, filled), last: true };
}

/**
 * Uploads `source` to `bucket/key`. A source smaller than one part goes in one PutObject. Rejects with the first error
 * (of the source, of S3, or the signal's reason) after aborting the multipart upload; if that abort fails too (the
 * store went away), the parts stay on the server as an incomplete upload, which `removeIncomplete` aborts later.
 */
export async function uploadStream(upload: StreamUpload): Promise<StoredData> {
  const { client, bucket: Bucket, key: Key, partBytes, contentType, signal } = upload;
  if (partBytes < MIN_PART_BYTES) throw new RangeError(`S3 parts must be at least ${MIN_PART_BYTES} bytes, not ${partBytes}`);
  let uploadId: string | undefined;
  let uploading: Promise<CompletedPart> | undefined;
  const uploaded: CompletedPart[] = [];
  const sha256 = createHash('sha256');
  let size = 0;
  const partMd5s: Buffer[] = [];
  // Size and SHA-256 of the bytes sent; confirmed when the store's ETag is the one their MD5s make.
  const sent = (etag: string | undefined, expected: string): StoredData =>
    ({ size, sha256: sha256.digest('hex'), confirmedByStore: unquoted(etag) === expected });
  try {
    let number = 0;
    for await (const part of partsOf(upload.source, partBytes)) {
      signal?.throwIfAborted();
      number += 1;
      sha256.update(part.data);
      size += part.data.byteLength;
      const md5 = md5Of(part.data);
      const ContentMD5 = md5.toString('base64');
      if (number === 1 && part.last) {
        const put = await client.send(new PutObjectCommand({ Bucket, Key, Body: part.data, ContentType: contentType, ContentMD5 }), { abortSignal: signal });
        return sent(put.ETag, md5.toString('hex'));
      }
      // The source ended exactly at a part boundary: the parts already sent are the whole object.
      if (part.last && part.data.byteLength === 0) break;
      if (number > MAX_PARTS) {
        throw new Error(`the dump is larger than ${MAX_PARTS} parts of ${partBytes} bytes, the most one S3 object can hold`);
      }
      if (uploadId === undefined) {
        const created = await client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: contentType }), { abortSignal: signal });
        if (created.UploadId === undefined) throw new Error(`S3 started a multipart upload of ${Key} but returned no upload id`);
        uploadId = created.UploadId;
      }
      if (uploading !== undefined) uploaded.push(await uploading);
      const PartNumber = number;
      const UploadId = uploadId;
      partMd5s.push(md5);
      uploading = client
        .send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part.data, ContentMD5 }), { abortSignal: signal })
        .then(({ ETag }) => ({ PartNumber, ETag }));
      // Awaited once the next part is full, or in the catch below; until then a failure must not count as unhandled.
      uploading.catch(() => undefined);
    }
    if (uploading !== undefined) uploaded.push(await uploading);
    uploading = undefined;
    signal?.throwIfAborted();
    const completed = await client.send(
      new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: uploaded } }),
      { abortSignal: signal },
    );
    return sent(completed.ETag, `${md5Of(Buffer.concat(partMd5s)).toString('hex')}-${uploaded.length}`);
  } catch (error) {
    // A part still being sent could otherwise land after the abort and be kept.
    await uploading?.catch(() => undefined);
    if (uploadId !== undefined) {
      await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
    }
    throw error;
  }
}
