import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { createLogger } from '@k8s-operators/controller-core/log';
import { openS3BackupStore } from '../stores/s3-store-options.ts';
import { BackupFailedError, runBackup } from '../dump/run-backup.ts';
import { parseAgeRecipients, type AgeRecipient } from '../encryption/age-keys.ts';
import type { DiscoverOptions } from '../postgres/tools-version.ts';
import type { BackupStore } from '../stores/store.ts';
import { RemoteBackupStore } from '../store-service/remote-store.ts';
import { BACKUP_JOB_FILES, serializeBackupJobResult, type BackupJobInput, type BackupJobResult, type BackupJobStore } from './backup-job-contract.ts';

/**
 * One backup Job's work, in the Job's Pod: what the operator did in its own process before backups ran as Jobs. It
 * clears unfinished data of this database from the store (the operator starts one backup Job per database at a time,
 * so nothing of it is being written; done while the server's version is read, and before the dump starts), runs the
 * backup (pg_dump streamed into the store with SHA-256, decoded in full by pg_restore, read back, manifest last:
 * run-backup.ts), and writes the outcome as the termination message.
 */

export interface BackupJobOptions {
  input: BackupJobInput;
  /** Where the projected volume with the password and the store's credentials is mounted. */
  secretsDir: string;
  /** The container's terminationMessagePath. */
  terminationLog: string;
  logger: ReturnType<typeof createLogger>;
  signal: AbortSignal;
  tools?: DiscoverOptions;
}

async function mounted(dir: string, file: string, what: string): Promise<string> {
  try {
    return (await readFile(join(dir, file), 'utf8')).trim();
  } catch (error) {
    throw new Error(`the ${what} is not mounted at ${join(dir, file)}: ${(error as Error).message}`, { cause: error });
  }
}

async function openStore(store: BackupJobStore, secretsDir: string): Promise<BackupStore> {
  if (store.kind === 'volume') {
    return new RemoteBackupStore({
      endpoint: { url: store.url, serverName: store.serverName, ca: store.ca },
      // Read for each request: the kubelet rotates the projected token.
      token: () => mounted(secretsDir, BACKUP_JOB_FILES.storeToken, 'backup store token'),
    });
  }
  const { kind: _kind, caBundle, ...location } = store;
  return openS3BackupStore({
    ...location,
    credentials: {
      accessKeyId: await mounted(secretsDir, BACKUP_JOB_FILES.accessKeyId, 'S3 access key id'),
      secretAccessKey: await mounted(secretsDir, BACKUP_JOB_FILES.secretAccessKey, 'S3 secret access key'),
    },
    ...(caBundle ? { caBundle: await mounted(secretsDir, BACKUP_JOB_FILES.caBundle, 'S3 CA bundle') } : {}),
  });
}

/** The recipients to encrypt to, or an error that names the field: the API server checks their shape, not their checksums. */
function encryptionRecipients(recipients: readonly string[]): AgeRecipient[] {
  try {
    return parseAgeRecipients(recipients);
  } catch (error) {
    throw new Error(`spec.backup.encryption.recipients cannot be used, nothing was dumped: ${(error as Error).message}`, { cause: error });
  }
}

/** Runs the backup and reports it; resolves to the process's exit code (0 only for a published, verified backup). */
export async function runBackupJob(options: BackupJobOptions): Promise<number> {
  const { input, secretsDir, terminationLog, logger, signal } = options;
  const started = performance.now();
  let result: BackupJobResult;
  try {
    const password = await mounted(secretsDir, BACKUP_JOB_FILES.password, 'database password');
    const store = await openStore(input.store, secretsDir);
    const sweep = async (): Promise<void> => {
      const cleared = await store.removeIncomplete({ namespace: input.key.namespace, postgresql: input.key.postgresql });
      if (cleared.length > 0) logger.info({ cleared: cleared.map((k) => k.backup) }, 'removed unfinished backup data');
    };
    const recipients = input.encryption === undefined ? undefined : encryptionRecipients(input.encryption.recipients);
    const manifest = await runBackup({
      store, key: input.key, trigger: input.trigger, connection: { ...input.connection, password }, signal, prepareStore: sweep,
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      ...(recipients === undefined ? {} : { recipients }),
    });
    result = { result: 'Completed', sha256: manifest.sha256, size: manifest.size };
    logger.info({ bytes: manifest.size, seconds: (performance.now() - started) / 1000, pgDump: manifest.pgDumpVersion, encryptedTo: manifest.encryption?.recipients }, 'backup completed');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    result = { result: 'Failed', error: message, ...(error instanceof BackupFailedError ? { stage: error.stage } : {}) };
    logger.error({ error: message }, 'backup failed; nothing was published');
  }
  await writeFile(terminationLog, serializeBackupJobResult(result));
  return result.result === 'Completed' ? 0 : 1;
}
