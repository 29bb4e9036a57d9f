import { Resources, type KubeClient } from '@k8s-operators/controller-core';
import { PASSWORD_SECRET_KEY } from '../api/password-secret.ts';
import { passwordFromSecret } from '../postgres/connection.ts';
import { getNamedObject } from './get-named-object.ts';

/**
 * The database password from the Secret `spec.password` names, or why it cannot be had, in words that say what to fix.
 * Messages name the Secret and the key, never what the Secret holds.
 */

export type PasswordLookup =
  | { ok: true; password: string; /** The Secret's resourceVersion: a change lets a failed restore be retried. */ secretVersion: string }
  | { ok: false; reason: 'SecretNotFound' | 'SecretKeyMissing' | 'PasswordEmpty'; message: string };

interface SecretLike {
  metadata?: { name?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

/**
 * How soon a PostgreSQL whose password Secret is missing or unusable looks again. The operator reads only the Secrets
 * it is pointed at, with `get` (it may not list or watch Secrets), so no event tells it that one was created or fixed.
 */
export const PASSWORD_RECHECK_MS = 10_000;

export function databasePassword(secretName: string, namespace: string, secret: SecretLike | undefined): PasswordLookup {
  if (secret === undefined) {
    return {
      ok: false,
      reason: 'SecretNotFound',
      message: `Secret ${secretName} (spec.password) was not found in namespace ${namespace}: create it with the password under data.${PASSWORD_SECRET_KEY}`,
    };
  }
  const found = passwordFromSecret(secret);
  if (found.ok) return { ...found, secretVersion: secret.metadata?.resourceVersion ?? '' };
  return {
    ok: false,
    reason: found.reason === 'KeyMissing' ? 'SecretKeyMissing' : 'PasswordEmpty',
    message: `${found.message}: put the database password under data.${PASSWORD_SECRET_KEY}`,
  };
}

/** Reads the named Secret from the API server (never from a cache of all Secrets) and the password in it. */
export async function readDatabasePassword(client: KubeClient, namespace: string, secretName: string): Promise<PasswordLookup> {
  return databasePassword(secretName, namespace, await getNamedObject(client, Resources.Secret, { namespace, name: secretName }, 'spec.password'));
}
