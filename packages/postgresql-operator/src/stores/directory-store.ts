import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StreamDigest, type Digest } from './digest.ts';
import { serializeManifest, type BackupManifest } from './manifest.ts';
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

/** The seed's mount point for the backup volume in the operator pod. */
export const DEFAULT_BACKUP_DIRECTORY = '/backup';

/**
 * Dumps are read back whole after every backup (for their SHA-256) and before every restore. 1 MiB reads instead of
 * the default 64 KiB take a 20 MiB dump in 20 reads instead of 320.
 */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Reads `path` to its end into one reused buffer, for its size and SHA-256. A stream (`read`) hands out a new buffer
 * per read, which its consumer may keep; a digest keeps nothing, so one buffer serves the whole file: a read-back
 * allocates one chunk instead of the file's size, which spares the operator's CPU the garbage collection.
 */
async function digestFile(path: string, signal: AbortSignal | undefined): Promise<Digest> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    const digest = new StreamDigest();
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await file.read(buffer, 0, buffer.byteLength, null);
      if (bytesRead === 0) return digest.result();
      digest.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
}

const DATA_SUFFIX = '.dump';
const MANIFEST_SUFFIX = '.manifest.json';
// Unfinished writes: `.<backup>.dump.<uuid>.tmp`. Kubernetes names never start with '.', so these never clash with a
// backup, and the uuid keeps two writers (an old leader still running) from sharing one.
const TEMP_FILE = /^\.(.+)(\.dump|\.manifest\.json)\.[0-9a-f-]{36}\.tmp$/;

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** A rename or a new entry is durable only once the directory holding it is fsynced. */
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

async function writeFully(file: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let offset = 0; offset < chunk.byteLength; ) {
    const { bytesWritten } = await file.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}

async function listDirectory(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

/**
 * A {@link BackupStore} on a local filesystem (a PersistentVolumeClaim): `<root>/<namespace>/<postgresql>/<backup>.dump`
 * beside `<backup>.manifest.json`. Files are written to a temporary name, fsynced, renamed into place and the directory
 * fsynced, so after a crash a file is either complete under its final name or a temporary file `removeIncomplete`
 * clears. Files are 0600 and directories 0700: dumps hold the application's data.
 */
export class DirectoryBackupStore implements BackupStore {
  readonly root: string;

  constructor(root: string = DEFAULT_BACKUP_DIRECTORY) {
    this.root = root;
  }

  #directory(scope: BackupScope & { postgresql: string }): string {
    return join(this.root, scope.namespace, scope.postgresql);
  }

  #dataPath(key: BackupKey): string {
    return join(this.#directory(key), `${key.backup}${DATA_SUFFIX}`);
  }

  #manifestPath(key: BackupKey): string {
    return join(this.#directory(key), `${key.backup}${MANIFEST_SUFFIX}`);
  }

  /** Creates `<root>/<namespace>/<postgresql>`, fsyncing each parent that gains an entry. */
  async #ensureDirectory(key: BackupKey): Promise<string> {
    if (!(await exists(this.root))) {
      throw new BackupStoreError(
        `backup directory ${this.root} does not exist: mount the backup volume (a PersistentVolumeClaim) there`,
      );
    }
    let parent = this.root;
    for (const part of [key.namespace, key.postgresql]) {
      const path = join(parent, part);
      try {
        await mkdir(path, { mode: 0o700 });
        await syncDirectory(parent);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      parent = path;
    }
    return parent;
  }

  /** Writes `chunks` to `directory/name` through a temporary file, fsync and rename; returns size and SHA-256. */
  async #writeAtomically(
    directory: string,
    name: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    signal: AbortSignal | undefined,
  ): Promise<StoredData> {
    const temp = join(directory, `.${name}.${randomUUID()}.tmp`);
    const file = await open(temp, 'wx', 0o600);
    const digest = new StreamDigest();
    let open_ = true;
    let renamed = false;
    try {
      for await (const chunk of chunks) {
        signal?.throwIfAborted();
        digest.update(chunk);
        await writeFully(file, chunk);
      }
      signal?.throwIfAborted();
      await file.sync();
      await file.close();
      open_ = false;
      await rename(temp, join(directory, name));
      renamed = true;
      await syncDirectory(directory);
      return digest.result();
    } finally {
      if (open_) await file.close().catch(() => undefined);
      if (!renamed) await rm(temp, { force: true });
    }
  }

  async write(key: BackupKey, data: AsyncIterable<Uint8Array>, options: { signal?: AbortSignal } = {}): Promise<StoredData> {
    checkBackupKey(key);
    options.signal?.throwIfAborted();
    const directory = await this.#ensureDirectory(key);
    if ((await exists(this.#dataPath(key))) || (await exists(this.#manifestPath(key)))) {
      throw new BackupStoreError(`${formatBackupKey(key)} already exists in the store; a backup is never overwritten`);
    }
    return this.#writeAtomically(directory, `${key.backup}${DATA_SUFFIX}`, data, options.signal);
  }

  async finalize(manifest: BackupManifest): Promise<void> {
    const { key } = manifest;
    checkBackupKey(key);
    let size: number;
    try {
      size = (await stat(this.#dataPath(key))).size;
    } catch (error) {
      if (isNotFound(error)) throw new BackupStoreError(`cannot finalize ${formatBackupKey(key)}: its data was not stored`);
      throw error;
    }
    if (size !== manifest.size) {
      throw new BackupStoreError(
        `cannot finalize ${formatBackupKey(key)}: the stored data has ${size} bytes, the manifest says ${manifest.size}`,
      );
    }
    const content = [Buffer.from(serializeManifest(manifest), 'utf8')];
    await this.#writeAtomically(this.#directory(key), `${key.backup}${MANIFEST_SUFFIX}`, content, undefined);
  }

  async manifest(key: BackupKey): Promise<BackupManifest | undefined> {
    checkBackupKey(key);
    let text: string;
    try {
      text = await readFile(this.#manifestPath(key), 'utf8');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return parseStoredManifest(key, text);
  }

  async list(scope?: BackupScope): Promise<StoreListing> {
    if (scope !== undefined) checkScope(scope);
    const listing: StoreListing = { backups: [], unreadable: [] };
    const namespaces = scope === undefined ? await listDirectory(this.root) : [scope.namespace];
    for (const namespace of namespaces.filter((name) => !name.startsWith('.'))) {
      const postgresqls =
        scope?.postgresql === undefined ? await listDirectory(join(this.root, namespace)) : [scope.postgresql];
      for (const postgresql of postgresqls.filter((name) => !name.startsWith('.'))) {
        const entries = await listDirectory(join(this.root, namespace, postgresql));
        for (const entry of entries) {
          if (entry.startsWith('.') || !entry.endsWith(MANIFEST_SUFFIX)) continue;
          const key = { namespace, postgresql, backup: entry.slice(0, -MANIFEST_SUFFIX.length) };
          try {
            const manifest = await this.manifest(key);
            if (manifest !== undefined) listing.backups.push(manifest);
          } catch (error) {
            listing.unreadable.push({ key, message: error instanceof Error ? error.message : String(error) });
          }
        }
      }
    }
    listing.backups.sort(newestFirst);
    return listing;
  }

  read(key: BackupKey, options: { signal?: AbortSignal } = {}): AsyncIterable<Uint8Array> {
    checkBackupKey(key);
    return createReadStream(this.#dataPath(key), { signal: options.signal, highWaterMark: READ_CHUNK_BYTES });
  }

  async digest(key: BackupKey, options: { signal?: AbortSignal } = {}): Promise<Digest> {
    checkBackupKey(key);
    return digestFile(this.#dataPath(key), options.signal);
  }

  async verifyChecksum(key: BackupKey, options: { signal?: AbortSignal } = {}): Promise<ChecksumCheck> {
    return verifyStoredChecksum(this, key, options, (error) => (isNotFound(error) ? 'the dump file is missing' : undefined));
  }

  async delete(key: BackupKey): Promise<void> {
    checkBackupKey(key);
    const directory = this.#directory(key);
    if (!(await exists(directory))) return;
    await rm(this.#manifestPath(key), { force: true });
    await syncDirectory(directory);
    await rm(this.#dataPath(key), { force: true });
    await syncDirectory(directory);
  }

  async removeIncomplete(scope: BackupScope): Promise<BackupKey[]> {
    checkScope(scope);
    const removed: BackupKey[] = [];
    const postgresqls =
      scope.postgresql === undefined ? await listDirectory(join(this.root, scope.namespace)) : [scope.postgresql];
    for (const postgresql of postgresqls.filter((name) => !name.startsWith('.'))) {
      const directory = join(this.root, scope.namespace, postgresql);
      const entries = new Set(await listDirectory(directory));
      const incomplete = new Map<string, string[]>();
      for (const entry of entries) {
        const temp = TEMP_FILE.exec(entry);
        let backup: string | undefined;
        if (temp !== null) backup = temp[1];
        else if (entry.endsWith(DATA_SUFFIX) && !entries.has(entry.slice(0, -DATA_SUFFIX.length) + MANIFEST_SUFFIX)) {
          backup = entry.slice(0, -DATA_SUFFIX.length);
        } else if (entry.endsWith(MANIFEST_SUFFIX) && !entries.has(entry.slice(0, -MANIFEST_SUFFIX.length) + DATA_SUFFIX)) {
          // A manifest whose dump is gone can never be restored.
          backup = entry.slice(0, -MANIFEST_SUFFIX.length);
        }
        if (backup !== undefined) incomplete.set(backup, [...(incomplete.get(backup) ?? []), entry]);
      }
      for (const [backup, files] of incomplete) {
        // Manifests go first, so a crash half-way leaves data without a manifest (garbage), never the reverse.
        for (const file of files.sort((a, b) => Number(b.endsWith(MANIFEST_SUFFIX)) - Number(a.endsWith(MANIFEST_SUFFIX)))) {
          await rm(join(directory, file), { force: true });
        }
        removed.push({ namespace: scope.namespace, postgresql, backup });
      }
      if (incomplete.size > 0) await syncDirectory(directory);
    }
    return removed;
  }
}
