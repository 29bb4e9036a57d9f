import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';

/**
 * Streams bytes of unknown length into one S3 object as a multipart upload, holding at most two parts in memory: the
 * one being uploaded and the one being filled from the source (so pg_dump keeps writing while a part is sent). Nothing
 * touches the local disk. The object appears only when the upload completes; a failed or aborted upload is aborted on
 * the server, so its parts are neither visible nor kept.
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
export async function uploadStream(upload: StreamUpload): Promise<void> {
  const { client, bucket: Bucket, key: Key, partBytes, contentType, signal } = upload;
  if (partBytes < MIN_PART_BYTES) throw new RangeError(`S3 parts must be at least ${MIN_PART_BYTES} bytes, not ${partBytes}`);
  let uploadId: string | undefined;
  let uploading: Promise<CompletedPart> | undefined;
  const uploaded: CompletedPart[] = [];
  try {
    let number = 0;
    for await (const part of partsOf(upload.source, partBytes)) {
      signal?.throwIfAborted();
      number += 1;
      if (number === 1 && part.last) {
        await client.send(new PutObjectCommand({ Bucket, Key, Body: part.data, ContentType: contentType }), { abortSignal: signal });
        return;
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
      uploading = client
        .send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part.data }), { abortSignal: signal })
        .then(({ ETag }) => ({ PartNumber, ETag }));
      // Awaited once the next part is full, or in the catch below; until then a failure must not count as unhandled.
      uploading.catch(() => undefined);
    }
    if (uploading !== undefined) uploaded.push(await uploading);
    uploading = undefined;
    signal?.throwIfAborted();
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: uploaded } }),
      { abortSignal: signal },
    );
  } catch (error) {
    // A part still being sent could otherwise land after the abort and be kept.
    await uploading?.catch(() => undefined);
    if (uploadId !== undefined) {
      await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
    }
    throw error;
  }
}
