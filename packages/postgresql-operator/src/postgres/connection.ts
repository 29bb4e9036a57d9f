import pg from 'pg';
import { PASSWORD_SECRET_KEY } from '../api/password-secret.ts';

/** The port of the official postgres image (and of every PostgreSQL pod the operator runs). */
export const POSTGRES_PORT = 5432;

/** Shown in `pg_stat_activity.application_name` for the operator's own sessions (pg_dump reports "pg_dump"). */
export const OPERATOR_APPLICATION_NAME = 'postgresql-operator';

/** A give-up bound for connecting, so a dead pod fails a reconcile instead of hanging it. */
const CONNECT_TIMEOUT_SECONDS = 10;

/** Where and as whom to connect to one database. */
export interface ConnectionParameters {
  /** The pod's IP (connections go straight to the pod: the Service only selects it once it is restored). */
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

export function connectionParameters(options: {
  podIP: string;
  port?: number;
  database: string;
  user: string;
  password: string;
}): ConnectionParameters {
  const { podIP, port = POSTGRES_PORT, database, user, password } = options;
  return { host: podIP, port, database, user, password };
}

/** The same server, another database (e.g. `postgres` for administration, or a scratch database). */
export function forDatabase(parameters: ConnectionParameters, database: string): ConnectionParameters {
  return { ...parameters, database };
}

/** Configuration for `new pg.Client(...)`. */
export function pgClientConfig(parameters: ConnectionParameters): pg.ClientConfig {
  return {
    host: parameters.host,
    port: parameters.port,
    database: parameters.database,
    user: parameters.user,
    password: parameters.password,
    application_name: OPERATOR_APPLICATION_NAME,
    connectionTimeoutMillis: CONNECT_TIMEOUT_SECONDS * 1000,
  };
}

/**
 * Environment for pg_dump / pg_restore. The password travels in PGPASSWORD, never on the command line (argv is
 * world-readable in /proc; a process's environment is readable only by its own user). The child gets nothing else of
 * the operator's environment: no credentials leak into it and no PG* variable of the operator changes its behaviour.
 */
export function pgToolEnvironment(parameters: ConnectionParameters): NodeJS.ProcessEnv {
  return {
    PGHOST: parameters.host,
    PGPORT: String(parameters.port),
    PGDATABASE: parameters.database,
    PGUSER: parameters.user,
    PGPASSWORD: parameters.password,
    PGCONNECT_TIMEOUT: String(CONNECT_TIMEOUT_SECONDS),
    // pg tools print messages in the server's language otherwise; errors are parsed by people, in English.
    LC_ALL: 'C',
    ...(process.env.PATH === undefined ? {} : { PATH: process.env.PATH }),
  };
}

/** Replaces every occurrence of each secret in `text` (error messages, stderr) with `[REDACTED]`. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  return secrets.filter((secret) => secret !== '').reduce((masked, secret) => masked.split(secret).join('[REDACTED]'), text);
}

/**
 * The error with the secrets masked in its message and stack, for errors that leave a module holding the password. The
 * error object itself is kept (and changed in place) so callers can still check its class and fields (pg's `code`).
 */
export function withMaskedSecrets(error: unknown, secrets: readonly string[]): Error {
  if (!(error instanceof Error)) return new Error(maskSecrets(String(error), secrets));
  error.message = maskSecrets(error.message, secrets);
  if (error.stack !== undefined) error.stack = maskSecrets(error.stack, secrets);
  return error;
}

/** Why a password could not be read from the Secret `spec.password` names. */
export type PasswordFromSecret =
  | { ok: true; password: string }
  | { ok: false; reason: 'KeyMissing' | 'PasswordEmpty'; message: string };

/**
 * The password from a Secret as read from the API server (`data` base64). The value is used exactly as stored, with
 * no trimming: the postgres image sets POSTGRES_PASSWORD from the same bytes, so both must agree.
 */
export function passwordFromSecret(secret: { metadata?: { name?: string }; data?: Record<string, string> }): PasswordFromSecret {
  const name = secret.metadata?.name ?? '(unnamed)';
  const encoded = secret.data?.[PASSWORD_SECRET_KEY];
  if (encoded === undefined) {
    return { ok: false, reason: 'KeyMissing', message: `Secret ${name} has no key ${PASSWORD_SECRET_KEY}` };
  }
  const password = Buffer.from(encoded, 'base64').toString('utf8');
  if (password === '') {
    return { ok: false, reason: 'PasswordEmpty', message: `Secret ${name} has an empty ${PASSWORD_SECRET_KEY}` };
  }
  return { ok: true, password };
}

/** Runs `use` with a connected client and closes it afterwards; errors never carry the password. */
export async function withConnection<T>(
  parameters: ConnectionParameters,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client(pgClientConfig(parameters));
  // A connection killed by the server (pg_terminate_backend, a dying pod) emits 'error' on an idle client; without a
  // listener that would crash the process. The failure reaches the caller through the next query instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await use(client);
  } catch (error) {
    throw withMaskedSecrets(error, [parameters.password]);
  } finally {
    await client.end().catch(() => undefined);
  }
}
