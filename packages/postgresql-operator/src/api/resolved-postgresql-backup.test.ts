import { describe, expect, it } from 'vitest';
import { backupFixture } from '../../test/postgresql-fixture.ts';
import { resolvePostgreSQLBackup } from './resolved-postgresql-backup.ts';

describe('resolvePostgreSQLBackup', () => {
  it('is OnDemand unless the spec names a trigger', () => {
    expect(resolvePostgreSQLBackup(backupFixture('foodb-1'))).toEqual({ trigger: 'OnDemand' });
    expect(resolvePostgreSQLBackup(backupFixture('foodb-1', { trigger: 'Scheduled' })).trigger).toBe('Scheduled');
  });

  it('reads the store its status records: absent for the backup volume', () => {
    const inS3 = backupFixture('foodb-1', { status: { phase: 'Running', s3: { bucket: 'backups', prefix: 'pg/', region: 'eu-west-1', forcePathStyle: true, credentialsSecret: 'c' } } });
    expect(resolvePostgreSQLBackup(inS3).writtenTo).toEqual({ location: { bucket: 'backups', prefix: 'pg/', region: 'eu-west-1', forcePathStyle: true }, credentialsSecret: 'c' });
    expect(resolvePostgreSQLBackup(backupFixture('foodb-1', { status: { phase: 'Running' } }))).not.toHaveProperty('writtenTo');
  });
});
