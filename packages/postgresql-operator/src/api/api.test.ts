import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crdManifest } from '@k8s-operators/controller-core';
import { crdDiff } from '@k8s-operators/controller-core/crd';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CRD_FILES } from './crd-files.ts';
import { PostgreSQLBackupResource, PostgreSQLResource } from './index.ts';

describe('CRDs under deploy/postgresql-operator/crd', () => {
  it('name the regeneration command when stale', () => {
    expect(crdDiff(PostgreSQLResource, '', { regenerateCommand: CRD_FILES.regenerateCommand })).toContain(
      'Regenerate it with: npm run crds -w @k8s-operators/postgresql-operator',
    );
  });

  it('keep the seed\'s names: postgresqls.exp.wheel.jp, kind PostgreSQL, short name pg', () => {
    const crd = crdManifest(PostgreSQLResource);
    expect(crd.metadata.name).toBe('postgresqls.exp.wheel.jp');
    expect(crd.spec.names).toMatchObject({ kind: 'PostgreSQL', plural: 'postgresqls', singular: 'postgresql', shortNames: ['pg'] });
    expect(crd.spec.versions.map((v) => v.name)).toEqual(['v1']);
    const spec = crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    expect(spec?.required).toEqual(['db', 'user', 'password']);
    expect(crdManifest(PostgreSQLBackupResource).metadata.name).toBe('postgresqlbackups.exp.wheel.jp');
  });
});

describe('samples', () => {
  const samples = join(CRD_FILES.directory, '..', 'samples');

  it('include the seed\'s example/db-for-foo.yaml word for word', async () => {
    const text = await readFile(join(samples, 'db-for-foo.yaml'), 'utf8');
    expect(text).toContain('apiVersion: "exp.wheel.jp/v1"\nkind: PostgreSQL\nmetadata:\n  name: foodb\nspec:\n  db: foo\n  user: foo\n  password: foodb-password\n');
    expect(text).toContain('  postgresql_password: bXlwYXNzd29yZA==\n');
  });

  // Every sample in the folder, so a new one cannot be left out.
  it.each(readdirSync(samples).filter((file) => file.endsWith('.yaml')))(
    '%s parses as YAML',
    async (file) => {
      const documents = parseAllDocuments(await readFile(join(samples, file), 'utf8'));
      expect(documents.flatMap((d) => d.errors)).toEqual([]);
    },
  );
});
