import type { RestoreCheckQuery } from '../api/resolved-postgresql-spec.ts';
import { CheckQueryError, type RestoredDatabaseAnswers, type TableRowCount } from '../restore/restore-check.ts';
import { BackupCorruptedError } from '../restore/restore-backup.ts';
import { BackupNotDecryptableError } from '../restore/backup-decryption.ts';
import type { RestoreCheckOutcome } from '../desired/restore-check-status.ts';
import { databaseProblem } from './database-errors.ts';

/**
 * What a restore drill's outcome means. Pure: the reconciler records what the verdict says.
 *
 * - Passed: restored, every table's rows counted, the check query (if any) answered as expected.
 * - Failed: a fault of the backup or of what restoring it needs, with the reason: the server refused the dump, the
 *   check answered otherwise or failed, the dump is damaged, no pg_restore of the server's major, a dump newer than
 *   the server, an encrypted dump the identity cannot decrypt (or no identity to be had).
 * - Interrupted: the drill could not finish for a reason that is no fault of the backup: the scratch server went away
 *   (its pod deleted or killed, the connection lost), the store could not be read, the password was not accepted.
 *   Nothing is recorded; the drill stays owed and runs again in a new scratch pod.
 */
export type RestoreCheckVerdict = RestoreCheckOutcome | { result: 'Interrupted'; message: string };

/** At most this much of a check's output is recorded: a status is no log. */
export const MAX_RECORDED_OUTPUT = 1024;

function shortened(text: string): string {
  return text.length <= MAX_RECORDED_OUTPUT ? text : `${text.slice(0, MAX_RECORDED_OUTPUT - 1)}…`;
}

/** "3 tables, 1200 rows: public.items 1000, public.orders 200, public.notes 0". */
export function describeRowCounts(tables: readonly TableRowCount[]): string {
  const total = tables.reduce((sum, t) => sum + t.rows, 0);
  const each = tables.map((t) => `${t.table} ${String(t.rows)}`).join(', ');
  return `${String(tables.length)} table${tables.length === 1 ? '' : 's'}, ${String(total)} row${total === 1 ? '' : 's'}${each === '' ? '' : `: ${each}`}`;
}

/** Compared as `psql -At` output is read: trailing blanks and newlines do not count. */
const normalized = (text: string): string => text.replace(/\s+$/, '');

/** The verdict on a restore that completed, from what reading the restored database answered. */
export function answersVerdict(check: RestoreCheckQuery | undefined, answers: RestoredDatabaseAnswers): RestoreCheckVerdict {
  const counted = describeRowCounts(answers.tables);
  if (check === undefined) return { result: 'Passed', output: shortened(counted) };
  const answer = answers.answer ?? '';
  const output = shortened(`${counted}; check query answered ${JSON.stringify(answer)}`);
  if (normalized(answer) === normalized(check.expect)) return { result: 'Passed', output };
  return {
    result: 'Failed',
    reason: 'CheckMismatch',
    error: shortened(`the check query answered ${JSON.stringify(answer)}, expected ${JSON.stringify(check.expect)}`),
    output,
  };
}

/**
 * What pg_restore and libpq say when the connection went away under them (the server killed, its pod deleted, the
 * session terminated): the scratch server's fault, whatever state it is in by the time anyone looks.
 */
const CONNECTION_LOST = /server closed the connection unexpectedly|could not receive data from server|connection to server .* failed|terminating connection|no connection to the server|Connection terminated/i;

/**
 * The verdict on a drill that threw. `scratchServerAnswers` says whether the scratch server still answered right
 * after the failure (its pod live, a connection accepted): a pg_restore that failed against a server that is still
 * there was refused by it; one whose server went away was interrupted.
 */
export function failureVerdict(error: unknown, scratchServerAnswers: boolean, context: { secret: string; user: string }): RestoreCheckVerdict {
  if (error instanceof BackupCorruptedError) return { result: 'Failed', reason: 'BackupCorrupted', error: shortened(error.message) };
  // A backup that cannot be decrypted with the identity given is not restorable, whatever the scratch server does.
  if (error instanceof BackupNotDecryptableError) return { result: 'Failed', reason: error.reason, error: shortened(error.message) };
  if (error instanceof CheckQueryError) {
    return scratchServerAnswers && !CONNECTION_LOST.test(error.message) ? { result: 'Failed', reason: 'CheckFailed', error: shortened(error.message) } : { result: 'Interrupted', message: error.message };
  }
  const problem = databaseProblem(error, context);
  switch (problem.reason) {
    case 'PgToolMissing':
    case 'DumpNewerThanServer':
      return { result: 'Failed', reason: problem.reason, error: shortened(problem.message) };
    case 'RestoreFailed':
      if (scratchServerAnswers && !CONNECTION_LOST.test(problem.message)) return { result: 'Failed', reason: 'RestoreFailed', error: shortened(problem.message) };
      return { result: 'Interrupted', message: `the scratch server went away during the restore: ${problem.message}` };
    default:
      return { result: 'Interrupted', message: problem.message };
  }
}
