import { PgToolNotFoundError } from '../postgres/tools-version.ts';
import { DumpNewerThanServerError } from '../restore/restore-backup.ts';
import { BackupStoreError } from '../stores/store.ts';
import { BackupNotDecryptableError, type BackupDecryptReason } from '../restore/backup-decryption.ts';

/**
 * Why examining or restoring a database failed, as a condition reason and a message that says what to do. Messages come from
 * errors that were masked where the password was at hand (withConnection, the pg tools, runBackup), and name the
 * Secret, never what it holds.
 */

export type DatabaseProblemReason =
  | 'AuthenticationFailed'
  | 'DatabaseUnreachable'
  | 'BackupStoreUnavailable'
  | 'PgToolMissing'
  | 'DumpNewerThanServer'
  | BackupDecryptReason
  | 'RestoreFailed';

/**
 * Problems that pass without anyone changing anything: a database still starting, a store down for a while. Nothing
 * the restore depends on changes when they pass, so a pod waiting on one is tried again at least every 30 s
 * (restore-backoff.ts) rather than after a back-off grown to minutes.
 */
export const CLEARS_BY_ITSELF: ReadonlySet<string> = new Set<DatabaseProblemReason>(['DatabaseUnreachable', 'BackupStoreUnavailable']);

/**
 * Problems no retry fixes, only another image: of the operator (the pg_restore of the server's major) or of the
 * database (a major at least the dump's). A pod refused for one is not tried again until what the restore depends on
 * changes (restore-backoff.ts); an operator started with another image tries it afresh.
 */
export const RETRY_CANNOT_FIX: ReadonlySet<string> = new Set<DatabaseProblemReason>(['PgToolMissing', 'DumpNewerThanServer']);

export interface DatabaseProblem {
  reason: DatabaseProblemReason;
  message: string;
}

/** PostgreSQL's SQLSTATEs for a wrong password or a role that may not log in. */
const AUTHENTICATION_CODES = new Set(['28P01', '28000']);
/** Node's socket errors for a server that is not (or no longer) there. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function databaseProblem(error: unknown, context: { secret: string; user: string }): DatabaseProblem {
  // The store's own errors carry socket codes too (S3 refusing connections): they are not the database's, and say
  // which store to check.
  if (error instanceof BackupStoreError) {
    return { reason: 'BackupStoreUnavailable', message: `the backups cannot be read to choose one to restore: ${error.message}` };
  }
  if (error instanceof PgToolNotFoundError) return { reason: 'PgToolMissing', message: error.message };
  if (error instanceof DumpNewerThanServerError) return { reason: 'DumpNewerThanServer', message: error.message };
  // NotAnAgeFile, NoMatchingIdentity, DamagedAgeFile, IdentityUnavailable: retried, as the identity Secret may change.
  if (error instanceof BackupNotDecryptableError) return { reason: error.reason, message: error.message };
  const code = codeOf(error) ?? codeOf((error as { cause?: unknown } | undefined)?.cause);
  if (code !== undefined && AUTHENTICATION_CODES.has(code)) {
    return {
      reason: 'AuthenticationFailed',
      message:
        `the password in Secret ${context.secret} is not accepted for user ${context.user}: PostgreSQL keeps the password ` +
        'it was initialised with, so a Secret changed afterwards no longer matches; put the original password back, or ' +
        `change the user's password in the database to the Secret's (${messageOf(error)})`,
    };
  }
  const text = messageOf(error);
  if ((code !== undefined && UNREACHABLE_CODES.has(code)) || /Connection terminated|timeout expired|the database system is (starting up|shutting down)/i.test(text)) {
    return { reason: 'DatabaseUnreachable', message: `the database does not answer yet: ${text}` };
  }
  return { reason: 'RestoreFailed', message: text };
}
