import { describe, expect, it } from 'vitest';
import { manifestFixture } from '../../test/postgresql-fixture.ts';
import { CheckQueryError } from '../restore/restore-check.ts';
import { BackupCorruptedError, DumpNewerThanServerError, RestoreFailedError } from '../restore/restore-backup.ts';
import { BackupNotDecryptableError } from '../restore/backup-decryption.ts';
import { answersVerdict, describeRowCounts, failureVerdict, MAX_RECORDED_OUTPUT } from './restore-check-verdict.ts';

const tables = [{ table: 'public.items', rows: 1000 }, { table: 'billing."Invoices"', rows: 200 }];
const context = { secret: 'foodb-password', user: 'foo' };

describe('answersVerdict', () => {
  it('passes a restore whose every table was counted, saying what was read', () => {
    expect(answersVerdict(undefined, { tables })).toEqual({ result: 'Passed', output: '2 tables, 1200 rows: public.items 1000, billing."Invoices" 200' });
    expect(describeRowCounts([])).toBe('0 tables, 0 rows');
    expect(describeRowCounts([{ table: 'public.items', rows: 1 }])).toBe('1 table, 1 row: public.items 1');
  });

  it("passes a check query whose answer is the expected one, trailing blanks aside, and fails one that differs", () => {
    const check = { query: 'SELECT count(*) FROM items', expect: '1000\n' };
    expect(answersVerdict(check, { tables, answer: '1000' })).toMatchObject({ result: 'Passed', output: expect.stringContaining('check query answered "1000"') as string });
    expect(answersVerdict(check, { tables, answer: '999' })).toEqual({
      result: 'Failed',
      reason: 'CheckMismatch',
      error: 'the check query answered "999", expected "1000\\n"',
      output: '2 tables, 1200 rows: public.items 1000, billing."Invoices" 200; check query answered "999"',
    });
  });

  it('keeps the recorded output short', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ table: `public.t${String(i)}`, rows: i }));
    const verdict = answersVerdict(undefined, { tables: many });
    expect(verdict.result === 'Passed' && verdict.output.length).toBe(MAX_RECORDED_OUTPUT);
  });
});

describe('failureVerdict', () => {
  it('fails the drill when the server that is still there refused the dump, or the check query failed on it', () => {
    const refused = new RestoreFailedError('restoring shop/foodb/foodb-1 into database foo failed and was rolled back: pg_restore: error: unrecognized configuration parameter "transaction_timeout"');
    expect(failureVerdict(refused, true, context)).toEqual({ result: 'Failed', reason: 'RestoreFailed', error: refused.message });
    expect(failureVerdict(new CheckQueryError('the check failed on the restored database: relation "orders" does not exist'), true, context)).toMatchObject({ result: 'Failed', reason: 'CheckFailed' });
  });

  it('fails the drill of an encrypted backup the identity cannot decrypt, with the reason, whether or not the server answers', () => {
    for (const reason of ['NoMatchingIdentity', 'DamagedAgeFile', 'NotAnAgeFile', 'IdentityUnavailable'] as const) {
      const error = new BackupNotDecryptableError(reason, `backup shop/foodb/foodb-1 cannot be decrypted (${reason})`);
      for (const answers of [true, false]) expect(failureVerdict(error, answers, context)).toEqual({ result: 'Failed', reason, error: error.message });
    }
  });

  it('is interrupted, never a failure of the backup, when the scratch server went away midway', () => {
    const lost = new RestoreFailedError('restoring shop/foodb/foodb-1 into database foo failed and was rolled back: pg_restore: error: server closed the connection unexpectedly');
    expect(failureVerdict(lost, false, context)).toMatchObject({ result: 'Interrupted' });
    // A session killed under pg_restore, on a server that is back by the time anyone looks.
    expect(failureVerdict(lost, true, context)).toMatchObject({ result: 'Interrupted' });
    expect(failureVerdict(new CheckQueryError('x'), false, context)).toMatchObject({ result: 'Interrupted' });
    expect(failureVerdict(Object.assign(new Error('connect ECONNREFUSED 127.0.0.9:5432'), { code: 'ECONNREFUSED' }), true, context)).toMatchObject({ result: 'Interrupted' });
    expect(failureVerdict(Object.assign(new Error('password authentication failed'), { code: '28P01' }), true, context)).toMatchObject({ result: 'Interrupted' });
  });

  it('fails on a damaged dump, and on one newer than the server, whether or not the server answers', () => {
    const corrupted = new BackupCorruptedError({ ok: false, problem: 'ChecksumMismatch', message: 'the dump\'s SHA-256 differs from its manifest\'s' });
    expect(failureVerdict(corrupted, false, context)).toMatchObject({ result: 'Failed', reason: 'BackupCorrupted' });
    const newer = new DumpNewerThanServerError(manifestFixture({ pgDumpVersion: '17.2' }), { version: '15.18', versionNum: 150018, major: 15 });
    expect(failureVerdict(newer, true, context)).toMatchObject({ result: 'Failed', reason: 'DumpNewerThanServer' });
  });
});
