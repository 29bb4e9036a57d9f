import { describe, expect, it } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import { dataClaimName, instanceKey, nameProblem } from './object-names.ts';

describe('names', () => {
  it('derive from the PostgreSQL', () => {
    expect(dataClaimName(postgresqlFixture())).toBe('foodb-data');
    expect(instanceKey(postgresqlFixture())).toBe('shop/foodb');
  });

  it('refuse a name that cannot name a Service or be a label value, saying why', () => {
    expect(nameProblem(postgresqlFixture())).toBeUndefined();
    expect(nameProblem(postgresqlFixture({ name: 'a'.repeat(63) }))).toBeUndefined();
    expect(nameProblem(postgresqlFixture({ name: 'a'.repeat(64) }))).toContain('at most 63');
    expect(nameProblem(postgresqlFixture({ name: '1db' }))).toContain('starting with a letter');
    expect(nameProblem(postgresqlFixture({ name: 'db.example' }))).toContain('cannot name the PostgreSQL\'s Service');
  });
});
