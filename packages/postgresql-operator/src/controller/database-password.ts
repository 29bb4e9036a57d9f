import { PASSWORD_SECRET_KEY } from '../api/password-secret.ts';
import { passwordFromSecret } from '../postgres/connection.ts';

/**
 * The database password from the Secret `spec.password` names, or why it cannot be had, in words that say what to fix.
 * Messages name the Secret and the key, never what the Secret holds.
 */

export type PasswordLookup =
  | { ok: true; password: string }
  | { ok: false; reason: 'SecretNotFound' | 'SecretKeyMissing' | 'PasswordEmpty'; message: string };

interface SecretLike {
  metadata?: { name?: string };
  data?: Record<string, string>;
}

/**
 * The operator caches Secrets of type Opaque only (other types, such as Helm's release Secrets, can be large and
 * numerous); the seed's Secret has no type, which is Opaque.
 */
export const WATCHED_SECRET_TYPE = 'Opaque';

export function databasePassword(secretName: string, namespace: string, secret: SecretLike | undefined): PasswordLookup {
  if (secret === undefined) {
    return {
      ok: false,
      reason: 'SecretNotFound',
      message:
        `Secret ${secretName} (spec.password) was not found in namespace ${namespace}: create it (type ${WATCHED_SECRET_TYPE}) ` +
        `with the password under data.${PASSWORD_SECRET_KEY}`,
    };
  }
  const found = passwordFromSecret(secret);
  if (found.ok) return found;
  return {
    ok: false,
    reason: found.reason === 'KeyMissing' ? 'SecretKeyMissing' : 'PasswordEmpty',
    message: `${found.message}: put the database password under data.${PASSWORD_SECRET_KEY}`,
  };
}
