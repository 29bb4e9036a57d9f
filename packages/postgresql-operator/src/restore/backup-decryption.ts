import { AgeDecryptError, openAgeFile, type AgeDecryptReason } from '../encryption/age-decrypt.ts';
import type { AgeIdentity } from '../encryption/age-keys.ts';
import type { BackupManifest } from '../stores/manifest.ts';
import { formatBackupKey, type BackupStore } from '../stores/store.ts';

/**
 * The dump a restore hands to pg_restore: the stored bytes of a plain backup, or the plaintext of an encrypted one.
 * An encrypted dump's age header is read, and the identity checked against it, before this resolves: a backup the
 * identity cannot open fails here, before any pg_restore starts. Damage further on throws while pg_restore reads,
 * which kills it inside its single transaction, so nothing of it is committed.
 */

/** Why an encrypted backup cannot be restored: a condition's reason, a drill's, an Event's. */
export type BackupDecryptReason = AgeDecryptReason | 'IdentityUnavailable';

/** An encrypted backup that was not, or not wholly, decrypted; nothing of it was restored. Never holds key material. */
export class BackupNotDecryptableError extends Error {
  override name = 'BackupNotDecryptableError';
  readonly reason: BackupDecryptReason;

  constructor(reason: BackupDecryptReason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * Where a restore gets the identity (`spec.backup.encryption.identitySecretRef`), asked only when the backup is
 * encrypted, so a missing Secret never stops the restore of a plain backup. It throws a
 * {@link BackupNotDecryptableError} with reason IdentityUnavailable when there is none to be had.
 */
export type IdentitySource = () => Promise<AgeIdentity>;

export interface BackupDump {
  data: AsyncIterable<Uint8Array>;
  /** Closes the store's read of a dump that will not be read after all (pg_restore did not start). */
  close(): Promise<void>;
}

export async function openBackupDump(
  store: BackupStore,
  backup: BackupManifest,
  identity: IdentitySource | undefined,
  signal?: AbortSignal,
): Promise<BackupDump> {
  // Opened only once it will be read: a store's read may open a file or a request at once.
  const read = (): AsyncIterable<Uint8Array> => store.read(backup.key, signal === undefined ? {} : { signal });
  const { encryption } = backup;
  if (encryption === undefined) return { data: read(), close: () => Promise.resolve() };
  const name = formatBackupKey(backup.key);
  if (identity === undefined) {
    throw new BackupNotDecryptableError(
      'IdentityUnavailable',
      `backup ${name} is encrypted (age, to ${encryption.recipients.join(', ')}) and no identity is given to decrypt it: ` +
        'set spec.backup.encryption.identitySecretRef to a Secret holding the identity of one of those recipients',
    );
  }
  try {
    const keys = await identity();
    const plaintext = await openAgeFile(read(), keys, { encryptedTo: encryption.recipients });
    const close = async (): Promise<void> => {
      await plaintext.return?.();
    };
    return { data: plaintext, close };
  } catch (error) {
    throw notDecryptable(name, error);
  }
}

/** A decryption error, said for the backup; other errors (the store's, the identity source's own) as they are. */
export function notDecryptable(name: string, error: unknown): unknown {
  if (!(error instanceof AgeDecryptError)) return error;
  return new BackupNotDecryptableError(error.reason, `backup ${name} cannot be decrypted, nothing of it was restored: ${error.message}`, { cause: error });
}
