import { Resources, type KubeClient } from '@k8s-operators/controller-core';
import type { ResolvedBackupEncryption } from '../api/resolved-postgresql-spec.ts';
import { AgeIdentity, InvalidAgeIdentityError } from '../encryption/age-keys.ts';
import { BackupNotDecryptableError, type IdentitySource } from '../restore/backup-decryption.ts';
import { getNamedObject } from './get-named-object.ts';

/**
 * The identity that decrypts a PostgreSQL's encrypted backups, from the Secret `spec.backup.encryption.
 * identitySecretRef` names, read with `get` when a restore (a new pod's, a drill's) reaches an encrypted backup, and
 * never kept: a Secret changed for a key rotation is read afresh by the next restore. Its messages name the Secret and
 * the key, never what they hold (AgeIdentity.parse never quotes a line either).
 */

interface SecretLike {
  data?: Record<string, string>;
}

const FIELD = 'spec.backup.encryption.identitySecretRef';

/** The identity in `secret`, or a BackupNotDecryptableError (IdentityUnavailable) saying what to fix. */
export async function identityFromSecret(ref: ResolvedBackupEncryption['identitySecret'], namespace: string, secret: SecretLike | undefined): Promise<AgeIdentity> {
  const unavailable = (problem: string, cause?: unknown): BackupNotDecryptableError =>
    new BackupNotDecryptableError('IdentityUnavailable', `the identity to decrypt backups cannot be read: ${problem}`, cause === undefined ? undefined : { cause });
  const create = `kubectl -n ${namespace} create secret generic ${ref.name} --from-file=${ref.key}=key.txt (the file age-keygen -o wrote)`;
  if (secret === undefined) throw unavailable(`Secret ${ref.name} (${FIELD}) was not found in namespace ${namespace}: create it with ${create}`);
  const encoded = secret.data?.[ref.key];
  if (encoded === undefined) throw unavailable(`Secret ${ref.name} (${FIELD}) has no key ${ref.key}: put the identity there, e.g. ${create}`);
  try {
    return await AgeIdentity.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch (error) {
    if (!(error instanceof InvalidAgeIdentityError)) throw error;
    throw unavailable(`key ${ref.key} of Secret ${ref.name} (${FIELD}) is no age identity: ${error.message}`, error);
  }
}

/** Where restores of this PostgreSQL get the identity: undefined when `spec.backup.encryption` is absent. */
export function identitySource(client: KubeClient, namespace: string, encryption: ResolvedBackupEncryption | undefined): IdentitySource | undefined {
  if (encryption === undefined) return undefined;
  const ref = encryption.identitySecret;
  return async () => identityFromSecret(ref, namespace, await getNamedObject(client, Resources.Secret, { namespace, name: ref.name }, FIELD));
}

/** `{ identity }` for a restore's request, or nothing: its field is optional, not undefined. */
export function optionalIdentity(identity: IdentitySource | undefined): { identity?: IdentitySource } {
  return identity === undefined ? {} : { identity };
}
