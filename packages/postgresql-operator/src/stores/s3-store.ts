import { Agent } from 'node:https';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { StreamDigest, type Digest } from './digest.ts';
import { serializeManifest, type BackupManifest } from './manifest.ts';
import { describeS3Error, S3StoreError, type S3Location } from './s3-store-errors.ts';
import { MIN_PART_BYTES, uploadStream } from './s3-store-upload.ts';
import { parseStoredManifest, verifyStoredChecksum } from './stored-backup-checks.ts';
import {
  BackupStoreError,
  checkBackupKey,
  checkScope,
  formatBackupKey,
  newestFirst,
  type BackupKey,
  type BackupScope,
  type BackupStore,
  type ChecksumCheck,
  type StoreListing,
  type StoredData,
} from './store.ts';

export interface S3BackupStoreOptions {
  bucket: string;
  /** Prepended to every object name, e.g. `postgresql/`; a missing trailing `/` is added. Default: none. */
  prefix?: string;
  /** The store's URL, e.g. `https://minio.storage.svc:9000`. Default: AWS S3 of `region`. */
  endpoint?: string;
  region: string;
  /**
   * Address buckets as `<endpoint>/<bucket>` instead of `<bucket>.<endpoint>`: what self-hosted stores (SeaweedFS,
   * MinIO, Ceph) usually need, since their buckets have no DNS names. Default false, as AWS wants.
   */
  forcePathStyle?: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /**
   * PEM certificates of the CAs that may sign the store's TLS certificate, instead of Node's public roots: for a store
   * behind a private CA. TLS is always verified; there is no way to turn that off.
   */
  caBundle?: string;
  /**
   * Size of every multipart-upload part but the last: a backup holds at most two parts in memory, and an object has at
   * most 10,000 parts. Default 16 MiB: 32 MiB of memory and dumps of up to 156 GiB.
   */
  partBytes?: number;
}

const DATA_SUFFIX = '.dump';
const MANIFEST_SUFFIX = '.manifest.json';
/** The part size unless `partBytes` says otherwise. */
export const DEFAULT_PART_BYTES = 16 * 1024 * 1024;
// An endpoint that accepts no connection fails in this time instead of the kernel's two minutes.
const CONNECT_TIMEOUT_MS = 10_000;
// A request that stalls this long (no bytes either way) is abandoned.
const IDLE_TIMEOUT_MS = 120_000;

/** `<prefix>` with exactly one trailing `/`, or empty. */
function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/**
 * The S3 client a store talks through, by its options: also for a benchmark's plain upload to the same bucket, so it
 * pays the same client.
 */
export function createS3Client(options: Pick<S3BackupStoreOptions, 'region' | 'endpoint' | 'forcePathStyle' | 'credentials' | 'caBundle'>): S3Client {
  const { region, endpoint, caBundle, credentials } = options;
  return new S3Client({
    region,
    endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    // Every stored dump is checked before its manifest is written (the object's ETag against the MD5s of the parts
    // sent, read-back.ts), which covers what the SDK's default per-request CRC checksums would; S3-compatible stores do
    // not all accept those.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: IDLE_TIMEOUT_MS,
      httpsAgent: new Agent({ keepAlive: true, ...(caBundle === undefined ? {} : { ca: caBundle }) }),
    },
  });
}

/**
 * A {@link BackupStore} in an S3-compatible bucket: `<prefix><namespace>/<postgresql>/<backup>.dump` beside
 * `<backup>.manifest.json`. Dumps stream into multipart uploads (uploadStream: two parts in memory, nothing on disk),
 * which become objects only once complete; the manifest is a second object written after the dump was checked, so
 * a backup exists exactly when its manifest object does. An upload that failed and could not be aborted (the store was
 * gone) stays an incomplete multipart upload, invisible to `list` and aborted by `removeIncomplete`.
 *
 * The AWS SDK is loaded by this module only: importing it costs the process about 30 MiB, which an operator using the
 * volume store does not pay as long as it imports this module lazily.
 */
export class S3BackupStore implements BackupStore {
  readonly bucket: string;
  readonly prefix: string;
  readonly #client: S3Client;
  readonly #where: S3Location;
  readonly #partBytes: number;

  constructor(options: S3BackupStoreOptions) {
    const { bucket, region, endpoint, caBundle, credentials, partBytes = DEFAULT_PART_BYTES } = options;
    if (caBundle !== undefined && endpoint !== undefined && new URL(endpoint).protocol !== 'https:') {
      throw new BackupStoreError(`a CA bundle was given for the S3 endpoint ${endpoint}, which is not https: use its https URL`);
    }
    if (partBytes < MIN_PART_BYTES) {
      throw new BackupStoreError(`S3 multipart parts must be at least ${MIN_PART_BYTES} bytes, not ${partBytes}`);
    }
    this.bucket = bucket;
    this.prefix = normalizePrefix(options.prefix);
    this.#partBytes = partBytes;
    this.#where = { endpoint: endpoint ?? `AWS S3 (${region})`, bucket, accessKeyId: credentials.accessKeyId };
    this.#client = createS3Client(options);
  }

  #object(key: BackupKey, suffix: string): string {
    return `${this.prefix}${key.namespace}/${key.postgresql}/${key.backup}${suffix}`;
  }

  #scopePrefix(scope: BackupScope | undefined): string {
    if (scope === undefined) return this.prefix;
    return `${this.prefix}${scope.namespace}/${scope.postgresql === undefined ? '' : `${scope.postgresql}/`}`;
  }

  /** The key and suffix of an object name under the prefix, or undefined for anything that is not a backup's object. */
  #parseObject(name: string): { key: BackupKey; suffix: string } | undefined {
    const parts = name.slice(this.prefix.length).split('/');
    if (!name.startsWith(this.prefix) || parts.length !== 3) return undefined;
    const [namespace = '', postgresql = '', file = ''] = parts;
    const suffix = [DATA_SUFFIX, MANIFEST_SUFFIX].find((s) => file.endsWith(s) && file.length > s.length);
    if (suffix === undefined) return undefined;
    const key = { namespace, postgresql, backup: file.slice(0, -suffix.length) };
    try {
      checkBackupKey(key);
    } catch {
      return undefined;
    }
    return { key, suffix };
  }

  async #send<T>(what: string, request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await request();
    } catch (error) {
      // The SDK reports an aborted request as its own error; the caller wants to see why it aborted.
      if (signal?.aborted === true) throw signal.reason;
      throw describeS3Error(error, what, this.#where);
    }
  }

  /**
   * Objects under `prefix` with their sizes, all pages. Also how the store looks up single objects: a HEAD request's
   * error has no body, so it could not say whether the credentials or the permissions were refused.
   */
  async #listObjects(prefix: string): Promise<Map<string, number | undefined>> {
    return this.#send(prefix === '' ? 'listing the bucket' : `listing ${prefix}`, async () => {
      const objects = new Map<string, number | undefined>();
      for await (const page of paginateListObjectsV2({ client: this.#client }, { Bucket: this.bucket, Prefix: prefix })) {
        for (const object of page.Contents ?? []) if (object.Key !== undefined) objects.set(object.Key, object.Size);
      }
      return objects;
    });
  }

  /** The objects of one backup (its dump, its manifest), by name with their sizes. */
  #objectsOf(key: BackupKey): Promise<Map<string, number | undefined>> {
    return this.#listObjects(this.#object(key, '.'));
  }

  async write(key: BackupKey, data: AsyncIterable<Uint8Array>, options: { signal?: AbortSignal } = {}): Promise<StoredData> {
    checkBackupKey(key);
    options.signal?.throwIfAborted();
    const name = this.#object(key, DATA_SUFFIX);
    const existing = await this.#objectsOf(key);
    if (existing.has(name) || existing.has(this.#object(key, MANIFEST_SUFFIX))) {
      throw new BackupStoreError(`${formatBackupKey(key)} already exists in the store; a backup is never overwritten`);
    }
    return this.#send(`uploading ${name}`, () =>
      uploadStream({
        client: this.#client,
        bucket: this.bucket,
        key: name,
        source: data,
        partBytes: this.#partBytes,
        contentType: 'application/octet-stream',
        signal: options.signal,
      }),
      options.signal,
    );
  }

  async finalize(manifest: BackupManifest): Promise<void> {
    const { key } = manifest;
    checkBackupKey(key);
    const name = this.#object(key, DATA_SUFFIX);
    const stored = await this.#objectsOf(key);
    if (!stored.has(name)) throw new BackupStoreError(`cannot finalize ${formatBackupKey(key)}: its data was not stored`);
    const size = stored.get(name);
    if (size !== manifest.size) {
      throw new BackupStoreError(
        `cannot finalize ${formatBackupKey(key)}: the stored data has ${size} bytes, the manifest says ${manifest.size}`,
      );
    }
    const manifestName = this.#object(key, MANIFEST_SUFFIX);
    await this.#send(`writing ${manifestName}`, () =>
      this.#client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: manifestName,
          Body: serializeManifest(manifest),
          ContentType: 'application/json',
        }),
      ),
    );
  }

  async manifest(key: BackupKey): Promise<BackupManifest | undefined> {
    checkBackupKey(key);
    const name = this.#object(key, MANIFEST_SUFFIX);
    let text: string;
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: name }));
      text = (await object.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      const described = describeS3Error(error, `reading ${name}`, this.#where);
      if (described instanceof S3StoreError && described.problem === 'NotFound') return undefined;
      throw described;
    }
    return parseStoredManifest(key, text);
  }

  async list(scope?: BackupScope): Promise<StoreListing> {
    if (scope !== undefined) checkScope(scope);
    const listing: StoreListing = { backups: [], unreadable: [] };
    for (const name of (await this.#listObjects(this.#scopePrefix(scope))).keys()) {
      const parsed = this.#parseObject(name);
      if (parsed?.suffix !== MANIFEST_SUFFIX) continue;
      try {
        const manifest = await this.manifest(parsed.key);
        if (manifest !== undefined) listing.backups.push(manifest);
      } catch (error) {
        if (error instanceof S3StoreError) throw error;
        listing.unreadable.push({ key: parsed.key, message: error instanceof Error ? error.message : String(error) });
      }
    }
    listing.backups.sort(newestFirst);
    return listing;
  }

  read(key: BackupKey, options: { signal?: AbortSignal } = {}): AsyncIterable<Uint8Array> {
    checkBackupKey(key);
    return this.#readObject(this.#object(key, DATA_SUFFIX), options.signal);
  }

  async *#readObject(name: string, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
    const object = await this.#send(
      `reading ${name}`,
      () => this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: name }), { abortSignal: signal }),
      signal,
    );
    try {
      // In Node the body is the HTTP response itself: Buffers as they arrive, paced by the reader.
      yield* object.Body as AsyncIterable<Uint8Array>;
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      throw error;
    }
  }

  async digest(key: BackupKey, options: { signal?: AbortSignal } = {}): Promise<Digest> {
    const digest = new StreamDigest();
    for await (const chunk of this.read(key, options)) digest.update(chunk);
    return digest.result();
  }

  async verifyChecksum(key: BackupKey, options: { signal?: AbortSignal } = {}): Promise<ChecksumCheck> {
    return verifyStoredChecksum(this, key, options, (error) =>
      error instanceof S3StoreError && error.problem === 'NotFound' ? 'the dump object is missing' : undefined,
    );
  }

  async delete(key: BackupKey): Promise<void> {
    checkBackupKey(key);
    for (const name of [this.#object(key, MANIFEST_SUFFIX), this.#object(key, DATA_SUFFIX)]) {
      // S3 answers a delete of a missing object with success.
      await this.#send(`deleting ${name}`, () => this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: name })));
    }
  }

  async removeIncomplete(scope: BackupScope): Promise<BackupKey[]> {
    checkScope(scope);
    const removed = new Map<string, BackupKey>();
    const prefix = this.#scopePrefix(scope);
    // Unfinished uploads first: a crash mid-upload leaves its parts, which cost storage but are no object.
    for (const upload of await this.#listUploads(prefix)) {
      const parsed = this.#parseObject(upload.key);
      if (parsed === undefined) continue;
      await this.#send(`aborting the upload of ${upload.key}`, () =>
        this.#client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.key, UploadId: upload.id })),
      );
      removed.set(formatBackupKey(parsed.key), parsed.key);
    }
    const names = new Set((await this.#listObjects(prefix)).keys());
    const incomplete: string[] = [];
    for (const name of names) {
      const parsed = this.#parseObject(name);
      if (parsed === undefined) continue;
      const other = this.#object(parsed.key, parsed.suffix === DATA_SUFFIX ? MANIFEST_SUFFIX : DATA_SUFFIX);
      // Data without a manifest never became a backup; a manifest whose dump is gone can never be restored.
      if (names.has(other)) continue;
      incomplete.push(name);
      removed.set(formatBackupKey(parsed.key), parsed.key);
    }
    // Manifests go first, so a failure half-way leaves data without a manifest (garbage), never the reverse.
    incomplete.sort((a, b) => Number(b.endsWith(MANIFEST_SUFFIX)) - Number(a.endsWith(MANIFEST_SUFFIX)));
    for (const name of incomplete) {
      await this.#send(`deleting ${name}`, () => this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: name })));
    }
    return [...removed.values()];
  }

  /** Incomplete multipart uploads under `prefix`, all pages. */
  async #listUploads(prefix: string): Promise<{ key: string; id: string }[]> {
    return this.#send(`listing incomplete uploads under ${prefix}`, async () => {
      const uploads: { key: string; id: string }[] = [];
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      for (;;) {
        const page = await this.#client.send(
          new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: prefix, KeyMarker, UploadIdMarker }),
        );
        for (const upload of page.Uploads ?? []) {
          if (upload.Key !== undefined && upload.UploadId !== undefined) uploads.push({ key: upload.Key, id: upload.UploadId });
        }
        if (page.IsTruncated !== true) return uploads;
        KeyMarker = page.NextKeyMarker;
        UploadIdMarker = page.NextUploadIdMarker;
      }
    });
  }
}
