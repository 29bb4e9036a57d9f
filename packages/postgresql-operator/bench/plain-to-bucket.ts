// The like-for-like baseline for the bucket: plain `pg_dump -Fc` streamed into the same bucket by the same client and
// multipart upload the store uses (parts of the store's size, each with its Content-MD5), with none of the operator's
// checks: no decode, no SHA-256 compared, no manifest. Against plain `pg_dump` into a local file, the operator's backup
// into a bucket also pays the bucket: on this machine SeaweedFS's CPU on the same two cores; against this, only its
// checks.
import { spawn } from 'node:child_process';
import type { S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_PART_BYTES } from '../src/stores/s3-store.ts';
import { uploadStream } from '../src/stores/s3-store-upload.ts';

/** `pg_dump -Fc` of `database` into `bucket/key`; resolves once pg_dump exited 0 and the upload completed. */
export async function plainDumpToBucket(options: {
  client: S3Client;
  bucket: string;
  key: string;
  pgDump: string;
  database: string;
  env: NodeJS.ProcessEnv;
}): Promise<void> {
  const dump = spawn(options.pgDump, ['-Fc', '-d', options.database], { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  dump.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text; });
  const exited = new Promise<void>((resolve, reject) => {
    dump.once('error', reject);
    dump.once('close', (code) => { if (code === 0) resolve(); else reject(new Error(`pg_dump exited with ${String(code)}: ${stderr}`)); });
  });
  try {
    await uploadStream({ client: options.client, bucket: options.bucket, key: options.key, source: dump.stdout, partBytes: DEFAULT_PART_BYTES, contentType: 'application/octet-stream' });
  } catch (error) {
    dump.kill();
    await exited.catch(() => undefined);
    throw error;
  }
  await exited;
}
