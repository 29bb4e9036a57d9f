import { Type } from 'typebox';
import { AGE_RECIPIENT_PATTERN } from '../encryption/age-keys.ts';
import { DEFAULT_AGE_IDENTITY_KEY, MAX_AGE_RECIPIENTS } from './backup-encryption.ts';
import { objectName } from './object-name-schema.ts';

/**
 * `PostgreSQL.spec.backup.encryption`: backups encrypted in the backup Job, before they leave it, in the age format
 * (https://age-encryption.org/v1), so that `age -d -i key.txt` decrypts one with no operator. The public keys are in
 * the spec; the private key only in a Secret, read by the operator when it restores (a new pod, a drill), never by
 * the backup Job.
 */

const IdentitySecretRef = Type.Object(
  {
    name: objectName('encryption.identitySecretRef.name', "Name of the Secret in the PostgreSQL's namespace."),
    key: Type.Optional(
      Type.String({
        description:
          'The key in the Secret that holds the identity, as `age-keygen -o` writes it: one or more AGE-SECRET-KEY-1... ' +
          'lines (several during a key rotation), comments allowed.',
        minLength: 1,
        maxLength: 253,
        default: DEFAULT_AGE_IDENTITY_KEY,
      }),
    ),
  },
  {
    description:
      'The Secret holding the identity (private keys) that decrypts the backups, for restores into new pods and restore ' +
      'drills. Read by the operator only when it restores an encrypted backup; the backup Job never sees it.',
  },
);

export const BackupEncryptionSpecSchema = Type.Object(
  {
    recipients: Type.Optional(
      Type.Array(
        Type.String({
          description: 'An age X25519 recipient (public key), as `age-keygen` prints it: age1 and 58 characters.',
          // Room for a private key pasted by mistake (74 characters), so it gets the message below, not "too long".
          maxLength: 128,
          'x-kubernetes-validations': [
            {
              rule: `self.matches('${AGE_RECIPIENT_PATTERN}')`,
              message:
                'each encryption.recipients entry must be an age public key: age1 and 58 lowercase bech32 characters, ' +
                'as `age-keygen` prints it after "Public key:" (never the AGE-SECRET-KEY-1... line, which is private)',
            },
          ],
        }),
        {
          description:
            'The public keys every new backup is encrypted to; any one of their identities decrypts it. Several, to ' +
            'rotate keys (add the new one, then remove the old). Omit to stop encrypting new backups: those already ' +
            'encrypted still restore with identitySecretRef.',
          minItems: 1,
          maxItems: MAX_AGE_RECIPIENTS,
          'x-kubernetes-validations': [
            { rule: 'self.all(r, self.exists_one(s, s == r))', message: 'encryption.recipients must not name the same key twice' },
          ],
        },
      ),
    ),
    identitySecretRef: IdentitySecretRef,
  },
  {
    description:
      'Encrypt backups in the age format before they leave the backup Job (recipients), and decrypt them for restores ' +
      '(identitySecretRef). The manifest next to each dump names the recipients it was encrypted to. Backups taken ' +
      'before encryption was added stay restorable as they are; keep identitySecretRef while any encrypted backup is kept.',
  },
);
