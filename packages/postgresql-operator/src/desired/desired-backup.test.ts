import { describe, expect, it } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import { desiredBackup, finalBackupName } from './desired-backup.ts';

describe('desiredBackup', () => {
  it('is labelled with its PostgreSQL and has no owner, so it outlives the PostgreSQL', () => {
    expect(desiredBackup(postgresqlFixture(), 'foodb-202601020305', 'Scheduled')).toEqual({
      apiVersion: 'exp.wheel.jp/v1',
      kind: 'PostgreSQLBackup',
      metadata: { name: 'foodb-202601020305', namespace: 'shop', labels: { 'exp.wheel.jp/postgresql': 'foodb' } },
      spec: { postgresql: 'foodb', trigger: 'Scheduled' },
    });
  });

  it('names the final backup after the PostgreSQL object, so a retry finds it and a new PostgreSQL gets its own', () => {
    expect(finalBackupName(postgresqlFixture())).toBe('foodb-final-0b7c6a1e');
  });
});
