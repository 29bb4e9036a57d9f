import type { BackupTrigger } from '../api/postgresql-backup-schema.ts';
import { withConnection, withMaskedSecrets, type ConnectionParameters } from '../postgres/connection.ts';
import { serverVersion, type ServerVersion } from '../postgres/inspect.ts';
import { PgToolError } from '../postgres/tool-process.ts';
import { locatePgTool, type DiscoverOptions, type InstalledPgTool } from '../postgres/tools-version.ts';
import { MANIFEST_VERSION, type BackupManifest } from './manifest.ts';
import { dumpDatabase } from './pg-dump.ts';
import { readBackDump } from './read-back.ts';
import { formatBackupKey, type BackupKey, type BackupStore, type StoredData } from './store.ts';

/**
 * One backup, start to finish: connect and read the server's version; pick a pg_dump of that major or newer; stream
 * `pg_dump -Fc` into the store (size and SHA-256 computed on the way, stored durably); read the stored dump back in
 * full; write the manifest last. It is a backup only if every step succeeded: on any failure the stored data is
 * deleted and nothing is published.
 */

/** Where a backup failed, for a condition reason or a metric label. */
export type BackupStage = 'Connect' | 'Tools' | 'Dump' | 'Store' | 'Verify' | 'Publish';

export class BackupFailedError extends Error {
  override name = 'BackupFailedError';
  readonly stage: BackupStage;

  constructor(stage: BackupStage, message: string, options?: ErrorOptions) {
    super(message, options);
    this.stage = stage;
  }
}

export interface BackupRequest {
  store: BackupStore;
  key: BackupKey;
  trigger: BackupTrigger;
  /** The PostgreSQL pod's address and credentials, with `database` = `spec.db`. */
  connection: ConnectionParameters;
  signal?: AbortSignal;
  /** Where pg_dump and pg_restore are looked for (default /usr/lib/postgresql/<major>/bin, then PATH). */
  tools?: DiscoverOptions;
  /** Default: the system clock. */
  now?: () => Date;
}

export async function runBackup(request: BackupRequest): Promise<BackupManifest> {
  const { store, key, trigger, connection, signal, tools = {}, now = () => new Date() } = request;
  const name = formatBackupKey(key);
  const fail = (stage: BackupStage, what: string, error: unknown): BackupFailedError =>
    new BackupFailedError(stage, `backup ${name}: ${what}: ${withMaskedSecrets(error, [connection.password]).message}`, {
      cause: error,
    });

  let server: ServerVersion;
  try {
    server = await withConnection(connection, serverVersion);
  } catch (error) {
    throw fail('Connect', `cannot connect to database ${connection.database} at ${connection.host}`, error);
  }
  let pgDump: InstalledPgTool;
  let pgRestore: InstalledPgTool;
  try {
    pgDump = await locatePgTool({ tool: 'pg_dump', minimumMajor: server.major }, tools);
    pgRestore = await locatePgTool({ tool: 'pg_restore', minimumMajor: pgDump.major }, tools);
  } catch (error) {
    throw fail('Tools', `no usable client tools for PostgreSQL ${server.version}`, error);
  }

  const startedAt = now();
  let stored: StoredData;
  try {
    stored = await store.write(key, dumpDatabase({ pgDump: pgDump.path, connection, signal }), { signal });
  } catch (error) {
    // The store removed its partial write and pg_dump is gone; nothing of this backup is left.
    if (signal?.aborted === true) throw fail('Dump', 'aborted', signal.reason);
    if (error instanceof PgToolError) throw fail('Dump', 'pg_dump failed', error);
    throw fail('Store', 'storing the dump failed', error);
  }
  const finishedAt = now();

  try {
    await readBackDump({
      data: store.read(key, { signal }),
      expected: stored,
      pgRestore: pgRestore.path,
      signal,
    });
  } catch (error) {
    await store.delete(key).catch(() => undefined);
    throw fail('Verify', 'verification failed', error);
  }

  const manifest: BackupManifest = {
    manifestVersion: MANIFEST_VERSION,
    key: { namespace: key.namespace, postgresql: key.postgresql, backup: key.backup },
    database: connection.database,
    trigger,
    format: 'custom',
    serverVersion: server.version,
    serverVersionNum: server.versionNum,
    pgDumpVersion: pgDump.version,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    verifiedAt: now().toISOString(),
    size: stored.size,
    sha256: stored.sha256,
  };
  try {
    signal?.throwIfAborted();
    await store.finalize(manifest);
  } catch (error) {
    await store.delete(key).catch(() => undefined);
    throw fail('Publish', 'writing the manifest failed', error);
  }
  return manifest;
}
