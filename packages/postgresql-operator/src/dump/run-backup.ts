import type { BackupTrigger } from '../api/backup-lifecycle.ts';
import { withConnection, withMaskedSecrets, type ConnectionParameters } from '../postgres/connection.ts';
import { serverVersion, type ServerVersion } from '../postgres/inspect.ts';
import { PgToolError } from '../postgres/tool-process.ts';
import { locatePgTool, type DiscoverOptions, type InstalledPgTool } from '../postgres/tools-version.ts';
import { decodeDump } from './decode-dump.ts';
import { digesting, StreamDigest, type Digest } from '../stores/digest.ts';
import { ENCRYPTED_MANIFEST_VERSION, MANIFEST_VERSION, type BackupManifest } from '../stores/manifest.ts';
import { encryptToRecipients } from '../encryption/age-encrypt.ts';
import type { AgeRecipient } from '../encryption/age-keys.ts';
import { dumpDatabase } from './pg-dump.ts';
import { DumpVerificationError, readBackDump } from './read-back.ts';
import { formatBackupKey, type BackupKey, type BackupStore, type StoredData } from '../stores/store.ts';
import { teeStream } from './tee.ts';

/**
 * One backup, start to finish: connect and read the server's version; pick the pg_dump and pg_restore of that major,
 * never another (tools-version.ts); stream `pg_dump -Fc` into the store (size and SHA-256 computed on the way, stored durably) and, at the same time, into
 * `pg_restore --file=/dev/null`, which decodes all of it (decode-dump.ts); check that the store holds what was written
 * and decoded: its size and SHA-256 read back, or confirmed by the store as it took the bytes (read-back.ts); write the
 * manifest last. With recipients, only the store's branch is encrypted (age, encryption/age-encrypt.ts): the store
 * holds and reads back the ciphertext, pg_restore decodes the plaintext, which is compared with the plaintext that was
 * encrypted; the Job never holds a key that could decrypt it. It is a
 * backup only if every step succeeded: on any failure pg_dump and pg_restore are stopped, the stored data is deleted
 * and nothing is published.
 */

/**
 * How far the decode may fall behind the store: the dump chunks pg_restore has not taken yet are held, up to this much
 * per running backup. pg_restore runs at the lowest priority (decode-dump.ts), and on a busy machine it gets CPU in
 * bursts. Held in step with the store, each of its pauses would stop the stream, and so pg_dump, which holds a
 * snapshot open on the server; with room to fall behind it catches up in the gaps, and the rest once pg_dump has
 * exited. Half or twice as much does no better. The operator's 512 MiB memory limit covers 16 MiB for each
 * of its 4 concurrent backups.
 */
export const DECODE_LAG_BYTES = 16 * 1024 * 1024;

/** Where a backup failed, for a condition reason or a metric label. */
export const BACKUP_STAGES = ['Connect', 'Tools', 'Dump', 'Store', 'Verify', 'Publish'] as const;
export type BackupStage = (typeof BACKUP_STAGES)[number];

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
  /**
   * Work on the store that must be done before the dump is written (a backup Job's sweep of its database's unfinished
   * data): started at once, alongside the connection to the server and the lookup of the client tools, so a Job does
   * not wait for one round trip after the other; the dump starts only once it has finished. Its failure fails the
   * backup at the Store stage.
   */
  prepareStore?: () => Promise<void>;
  /** Encrypt the stored dump to these age recipients (`spec.backup.encryption.recipients`). Absent: stored as it is. */
  recipients?: readonly AgeRecipient[];
}

export async function runBackup(request: BackupRequest): Promise<BackupManifest> {
  const { store, key, trigger, connection, signal, tools = {}, now = () => new Date(), prepareStore, recipients } = request;
  const name = formatBackupKey(key);
  const fail = (stage: BackupStage, what: string, error: unknown): BackupFailedError =>
    new BackupFailedError(stage, `backup ${name}: ${what}: ${withMaskedSecrets(error, [connection.password]).message}`, {
      cause: error,
    });

  const prepared = (prepareStore?.() ?? Promise.resolve()).catch((error: unknown) => {
    throw fail('Store', 'getting the store ready for the dump failed', error);
  });
  // Awaited below on every path; until then its failure must not count as unhandled.
  prepared.catch(() => undefined);
  // A backup that fails before its dump still waits for the store's work, so none of it outlives the backup.
  const failBeforeDump = async (error: BackupFailedError): Promise<never> => {
    await prepared.catch(() => undefined);
    throw error;
  };
  let server: ServerVersion;
  try {
    server = await withConnection(connection, serverVersion);
  } catch (error) {
    return failBeforeDump(fail('Connect', `cannot connect to database ${connection.database} at ${connection.host}`, error));
  }
  let pgDump: InstalledPgTool;
  let pgRestore: InstalledPgTool;
  try {
    pgDump = await locatePgTool({ tool: 'pg_dump', major: server.major }, tools);
    pgRestore = await locatePgTool({ tool: 'pg_restore', major: server.major }, tools);
  } catch (error) {
    return failBeforeDump(fail('Tools', `no usable client tools for PostgreSQL ${server.version}`, error));
  }
  await prepared;

  const startedAt = now();
  let finishedAt = startedAt;
  // The store and pg_restore read the same stream, pg_restore up to DECODE_LAG_BYTES behind; either one failing or
  // stopping stops the other and pg_dump.
  // One that settles without having read to the end (the store refusing the key before it read anything) stops the
  // stream too, so the other does not wait for it.
  const tee = teeStream(dumpDatabase({ pgDump: pgDump.path, connection, signal }), {
    maxLagBytes: DECODE_LAG_BYTES,
  });
  const [toStore, toDecode] = tee.branches;
  const encryption = recipients === undefined ? undefined : { recipients, plaintext: new StreamDigest() };
  const stored = encryption === undefined ? toStore : encryptToRecipients(digesting(toStore, encryption.plaintext), encryption.recipients);
  const [written, decoded] = await Promise.allSettled([
    store
      .write(key, stored, { signal })
      .then((stored) => {
        finishedAt = now();
        return stored;
      })
      .finally(() => {
        tee.stop();
      }),
    decodeDump({ data: toDecode, pgRestore: pgRestore.path, signal }).finally(() => {
      tee.stop();
    }),
  ]);
  await tee.settled;
  if (written.status === 'rejected' || decoded.status === 'rejected') {
    await store.delete(key).catch(() => undefined);
    if (signal?.aborted === true) throw fail('Dump', 'aborted', signal.reason);
    const [stage, what, error] = whatFailed(written, decoded);
    throw fail(stage, what, error);
  }

  const plaintextDigest = encryption?.plaintext.result();
  try {
    await readBackDump({ store, key, written: written.value, decoded: decoded.value, signal, ...(plaintextDigest === undefined ? {} : { plaintext: plaintextDigest }) });
  } catch (error) {
    await store.delete(key).catch(() => undefined);
    if (signal?.aborted === true) throw fail('Verify', 'aborted', signal.reason);
    throw fail('Verify', 'verification failed', error);
  }
  const manifest: BackupManifest = {
    manifestVersion: plaintextDigest === undefined ? MANIFEST_VERSION : ENCRYPTED_MANIFEST_VERSION,
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
    size: written.value.size,
    sha256: written.value.sha256,
    ...(encryption === undefined || plaintextDigest === undefined
      ? {}
      : { encryption: { format: 'age', recipients: [...encryption.recipients], plaintextSize: plaintextDigest.size, plaintextSha256: plaintextDigest.sha256 } }),
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

/**
 * Which of pg_dump, the store and pg_restore failed first. Whichever fails stops the other two, and those then report
 * pg_dump's error or that the stream was stopped (tee.ts); the error that is not such a consequence is the cause.
 */
function whatFailed(
  written: PromiseSettledResult<StoredData>,
  decoded: PromiseSettledResult<Digest>,
): [BackupStage, string, unknown] {
  const errors = [written, decoded].flatMap((result): unknown[] =>
    result.status === 'rejected' ? [result.reason] : [],
  );
  // pg_dump's failure reaches both readers. decodeDump turns pg_restore's own errors into DumpVerificationErrors, so a
  // PgToolError here is pg_dump's.
  const dumpError = errors.find((error) => error instanceof PgToolError);
  if (dumpError !== undefined) return ['Dump', 'pg_dump failed', dumpError];
  const verifyError = errors.find((error) => error instanceof DumpVerificationError);
  if (verifyError !== undefined) return ['Verify', 'verification failed', verifyError];
  if (written.status === 'rejected') return ['Store', 'storing the dump failed', written.reason];
  // The store returned without reading the whole dump, and pg_restore was stopped for it.
  return [
    'Store',
    'storing the dump failed',
    new Error(
      `the store stopped reading the dump after ${written.value.size} bytes, before its end, and reported success`,
    ),
  ];
}
