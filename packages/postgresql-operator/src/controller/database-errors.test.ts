import { describe, expect, it } from 'vitest';
import { S3StoreError } from '../stores/s3-store-errors.ts';
import { manifestFixture } from '../../test/postgresql-fixture.ts';
import { PgToolNotFoundError } from '../postgres/tools-version.ts';
import { DumpNewerThanServerError } from '../restore/restore-backup.ts';
import { CLEARS_BY_ITSELF, RETRY_CANNOT_FIX, databaseProblem } from './database-errors.ts';

const context = { secret: 'foodb-password', user: 'foo' };
const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('databaseProblem', () => {
  it('calls a refused password an authentication failure and says how to fix it', () => {
    const problem = databaseProblem(withCode('password authentication failed for user "foo"', '28P01'), context);
    expect(problem.reason).toBe('AuthenticationFailed');
    expect(problem.message).toContain('the password in Secret foodb-password is not accepted for user foo');
  });

  it('calls a server that does not answer unreachable', () => {
    expect(databaseProblem(withCode('connect ECONNREFUSED 10.0.0.1:5432', 'ECONNREFUSED'), context).reason).toBe('DatabaseUnreachable');
    expect(databaseProblem(new Error('Connection terminated unexpectedly'), context).reason).toBe('DatabaseUnreachable');
    expect(databaseProblem(withCode('the database system is starting up', '57P03'), context).reason).toBe('DatabaseUnreachable');
  });

  it("does not take the backup store's unreachability for the database's", () => {
    const refused = new S3StoreError('Unreachable', 'cannot reach S3 at http://10.0.0.2:9000 (ECONNREFUSED): check the endpoint URL', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') });
    expect(databaseProblem(refused, context)).toEqual({
      reason: 'BackupStoreUnavailable',
      message: 'the backups cannot be read to choose one to restore: cannot reach S3 at http://10.0.0.2:9000 (ECONNREFUSED): check the endpoint URL',
    });
  });

  it('counts an unreachable database or store as passing by itself, a refused password or a failed restore as needing someone', () => {
    const clears = (error: Error): boolean => CLEARS_BY_ITSELF.has(databaseProblem(error, context).reason);
    expect(clears(withCode('connect ECONNREFUSED 10.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(clears(new S3StoreError('Unreachable', 'cannot reach S3 at http://10.0.0.2:9000 (ECONNREFUSED)'))).toBe(true);
    expect(clears(withCode('password authentication failed for user "foo"', '28P01'))).toBe(false);
    expect(clears(new Error('pg_restore exited with code 1'))).toBe(false);
  });

  it('calls a missing pg_restore of the server\'s major or a dump from a newer major something no retry fixes', () => {
    const missing = new PgToolNotFoundError('pg_restore 16 is needed for a PostgreSQL 16 server, and no pg_restore is installed: …');
    expect(databaseProblem(missing, context)).toEqual({ reason: 'PgToolMissing', message: missing.message });
    const newer = new DumpNewerThanServerError(manifestFixture({ pgDumpVersion: '17.2', serverVersion: '17.2' }), { version: '15.18', versionNum: 150018, major: 15 });
    expect(databaseProblem(newer, context)).toEqual({ reason: 'DumpNewerThanServer', message: newer.message });
    for (const error of [missing, newer]) {
      expect(RETRY_CANNOT_FIX.has(databaseProblem(error, context).reason)).toBe(true);
      expect(CLEARS_BY_ITSELF.has(databaseProblem(error, context).reason)).toBe(false);
    }
    expect(RETRY_CANNOT_FIX.has(databaseProblem(new Error('pg_restore exited with code 1'), context).reason)).toBe(false);
  });

  it('calls anything else a failed restore, with its message', () => {
    expect(databaseProblem(new Error('pg_restore exited with code 1'), context)).toEqual({ reason: 'RestoreFailed', message: 'pg_restore exited with code 1' });
  });
});
