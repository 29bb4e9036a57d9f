import { join } from 'node:path';
import { customResourceRef } from '@k8s-operators/controller-core';
import { packagesLoadedBy } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';
import { PostgreSQLBackupResource } from './postgresql-backup-resource.ts';
import { PostgreSQLBackupRef, PostgreSQLRef } from './postgresql-refs.ts';
import { PostgreSQLResource } from './postgresql-resource.ts';

describe('the refs the runtime uses', () => {
  it('are the ones the CRD declarations give', () => {
    expect(PostgreSQLRef).toEqual(customResourceRef(PostgreSQLResource));
    expect(PostgreSQLBackupRef).toEqual(customResourceRef(PostgreSQLBackupResource));
  });

  it('keep schema code out of the operator: its entry point loads no TypeBox', async () => {
    const loaded = await packagesLoadedBy(join(import.meta.dirname, '..', 'main.ts'), ['--help']);
    expect(loaded).toContain('pg'); // the check sees the packages the operator does load
    expect(loaded).not.toContain('typebox');
  });
});
