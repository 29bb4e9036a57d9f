import type { BackupManifest } from '../stores/manifest.ts';
import { formatBackupKey, type BackupStore, type ChecksumCheck } from '../stores/store.ts';
import { pgToolEnvironment, withConnection, withMaskedSecrets, type ConnectionParameters } from '../postgres/connection.ts';
import { isDatabaseEmpty, serverVersion, type ServerVersion } from '../postgres/inspect.ts';
import { startPgTool } from '../postgres/tool-process.ts';
import { AgeDecryptError } from '../encryption/age-decrypt.ts';
import { notDecryptable, openBackupDump, type BackupDump, type IdentitySource } from './backup-decryption.ts';
import { locatePgTool, majorOfVersion, type DiscoverOptions } from '../postgres/tools-version.ts';

/**
 * Restores one backup into an EMPTY database, all or nothing:
 *
 *   pg_restore --single-transaction --exit-on-error --no-owner --no-acl --role=<user> --dbname=<db>
 *
 * then ANALYZE (a dump carries no planner statistics). `--single-transaction` means a restore that fails half-way
 * (a constraint that does not hold, a connection that drops) leaves the database exactly as empty as it was, so it can
 * be retried from the same or an older backup. `--no-owner --no-acl --role` make everything owned by the PostgreSQL's
 * user, whatever roles existed where the dump was taken.
 */

export class DatabaseNotEmptyError extends Error {
  override name = 'DatabaseNotEmptyError';
  /** What was found, e.g. ["table public.orders"]. */
  readonly found: string[];

  constructor(database: string, found: string[]) {
    super(`database ${database} is not empty (${found.join(', ')}): a restore never overwrites existing data`);
    this.found = found;
  }
}

export class BackupCorruptedError extends Error {
  override name = 'BackupCorruptedError';
  readonly check: Extract<ChecksumCheck, { ok: false }>;

  constructor(check: Extract<ChecksumCheck, { ok: false }>) {
    super(`backup is corrupted and was not restored: ${check.message}`);
    this.check = check;
  }
}

/**
 * A dump whose pg_dump is of a newer major than the server: it holds what the server may not have (settings, catalog
 * features), and the pg_restore of the server's major may not even read it. Only running the database on a newer
 * major lets it be restored.
 */
export class DumpNewerThanServerError extends Error {
  override name = 'DumpNewerThanServerError';

  constructor(backup: BackupManifest, server: ServerVersion) {
    const dumpMajor = majorOfVersion(backup.pgDumpVersion);
    super(
      `backup ${formatBackupKey(backup.key)} was written by pg_dump ${backup.pgDumpVersion} (from a PostgreSQL ` +
        `${backup.serverVersion} server) and is not restored into this PostgreSQL ${server.version} server: a dump is ` +
        `restored only into a server of its pg_dump's major or newer. Run the database on PostgreSQL ${dumpMajor} or newer ` +
        `(spec.image, e.g. postgres:${dumpMajor}).`,
    );
  }
}

export class RestoreFailedError extends Error {
  override name = 'RestoreFailedError';
}

export interface RestoreRequest {
  store: BackupStore;
  backup: BackupManifest;
  /** The PostgreSQL pod's address and credentials, with `database` = the database to restore into. */
  connection: ConnectionParameters;
  /** The role that owns everything restored (`spec.user`). */
  role: string;
  signal?: AbortSignal;
  tools?: DiscoverOptions;
  /** The identity for an encrypted backup (backup-decryption.ts); absent: none is configured. */
  identity?: IdentitySource;
}

/** Starts pg_restore on the dump, closing the dump's read if pg_restore cannot be started. */
async function startRestore(options: Parameters<typeof startPgTool>[0], dump: BackupDump): Promise<ReturnType<typeof startPgTool>> {
  try {
    return startPgTool(options);
  } catch (error) {
    await dump.close();
    throw error;
  }
}

export interface RestoreReport {
  backup: BackupManifest;
  /** The pg_restore that ran, e.g. "15.18". */
  pgRestoreVersion: string;
}

/**
 * Restores `backup` after checking that the database is empty, that the dump is not of a newer major than the server
 * ({@link DumpNewerThanServerError}), that the pg_restore of the server's major is installed (PgToolNotFoundError, see
 * tools-version.ts), and that the dump still matches its manifest's size and SHA-256: a corrupted dump throws
 * {@link BackupCorruptedError} and is never handed to pg_restore. The cheap checks come first: one that fails fails at
 * once, without reading the dump. An encrypted backup is opened with the identity before pg_restore starts
 * (backup-decryption.ts): one it cannot decrypt throws BackupNotDecryptableError with nothing restored.
 */
export async function restoreBackup(request: RestoreRequest): Promise<RestoreReport> {
  const { store, backup, connection, role, signal, tools = {}, identity } = request;
  const name = formatBackupKey(backup.key);
  const server = await withConnection(connection, async (client) => {
    const contents = await isDatabaseEmpty(client);
    if (!contents.empty) throw new DatabaseNotEmptyError(connection.database, contents.found);
    return serverVersion(client);
  });

  if (majorOfVersion(backup.pgDumpVersion) > server.major) throw new DumpNewerThanServerError(backup, server);
  const pgRestore = await locatePgTool({ tool: 'pg_restore', major: server.major }, tools);

  const check = await store.verifyChecksum(backup.key, { signal });
  if (!check.ok) throw new BackupCorruptedError(check);
  const dump = await openBackupDump(store, backup, identity, signal);
  const restore = startRestore({
    path: pgRestore.path,
    args: [
      '--format=custom',
      '--single-transaction',
      '--exit-on-error',
      '--no-owner',
      '--no-acl',
      `--role=${role}`,
      `--dbname=${connection.database}`,
      '--no-password',
    ],
    env: pgToolEnvironment(connection),
    stdin: dump.data,
    stdout: 'ignore',
    secrets: [connection.password],
    signal,
  }, dump);
  try {
    await (await restore).exited;
  } catch (error) {
    // The ciphertext failed to authenticate part-way: pg_restore was killed inside its transaction.
    if (error instanceof AgeDecryptError) throw notDecryptable(name, error);
    throw new RestoreFailedError(
      `restoring ${name} into database ${connection.database} failed and was rolled back: ` +
        withMaskedSecrets(error, [connection.password]).message,
      { cause: error },
    );
  }
  try {
    await withConnection(connection, async (client) => {
      await client.query('ANALYZE');
    });
  } catch (error) {
    throw new RestoreFailedError(
      `restored ${name} into database ${connection.database}, but ANALYZE failed: ${withMaskedSecrets(error, [connection.password]).message}`,
      { cause: error },
    );
  }
  return { backup, pgRestoreVersion: pgRestore.version };
}
