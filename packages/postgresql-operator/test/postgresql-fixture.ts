import type { PostgreSQL, PostgreSQLSpec } from '../src/api/postgresql-resource.ts';
import type { PostgreSQLBackup } from '../src/api/postgresql-backup-resource.ts';
import { MANIFEST_VERSION, type BackupManifest } from '../src/stores/manifest.ts';

export const FIXTURE_NAMESPACE = 'shop';
export const FIXTURE_UID = '0b7c6a1e-5d3f-4c2a-9e8b-1f2a3b4c5d6e';

export interface PostgreSQLFixtureOptions {
  name?: string;
  generation?: number;
  spec?: Partial<PostgreSQLSpec>;
  status?: PostgreSQL['status'];
  creationTimestamp?: string;
  deletionTimestamp?: string;
}

/**
 * The seed's `db-for-foo.yaml` PostgreSQL as the API server returns it (uid, namespace, generation; without the CRD's
 * defaults, which the code must not rely on), with any fields replaced.
 */
export function postgresqlFixture(options: PostgreSQLFixtureOptions = {}): PostgreSQL {
  const { name = 'foodb', generation = 1, creationTimestamp = '2026-01-02T03:00:00Z' } = options;
  return {
    apiVersion: 'exp.wheel.jp/v1',
    kind: 'PostgreSQL',
    metadata: {
      name,
      namespace: FIXTURE_NAMESPACE,
      uid: FIXTURE_UID,
      generation,
      // The wire format; client-node's type says Date.
      creationTimestamp: creationTimestamp as unknown as Date,
      ...(options.deletionTimestamp === undefined ? {} : { deletionTimestamp: options.deletionTimestamp as unknown as Date }),
    },
    spec: { db: 'foo', user: 'foo', password: 'foodb-password', ...options.spec },
    ...(options.status === undefined ? {} : { status: options.status }),
  };
}

export interface BackupFixtureOptions {
  postgresql?: string;
  trigger?: 'Scheduled' | 'OnDemand' | 'Final';
  status?: PostgreSQLBackup['status'];
  creationTimestamp?: string;
  deletionTimestamp?: string;
  uid?: string;
}

export function backupFixture(name: string, options: BackupFixtureOptions = {}): PostgreSQLBackup {
  const { postgresql = 'foodb', creationTimestamp = '2026-01-02T03:05:00Z' } = options;
  return {
    apiVersion: 'exp.wheel.jp/v1',
    kind: 'PostgreSQLBackup',
    metadata: {
      name,
      namespace: FIXTURE_NAMESPACE,
      uid: options.uid ?? `uid-${name}`,
      creationTimestamp: creationTimestamp as unknown as Date,
      ...(options.deletionTimestamp === undefined ? {} : { deletionTimestamp: options.deletionTimestamp as unknown as Date }),
    },
    spec: { postgresql, ...(options.trigger === undefined ? {} : { trigger: options.trigger }) },
    ...(options.status === undefined ? {} : { status: options.status }),
  };
}

/** The manifest of a verified backup of foodb (database `foo`, PostgreSQL 15.18), with any fields replaced. */
export function manifestFixture(fields: Partial<BackupManifest> = {}): BackupManifest {
  return {
    manifestVersion: MANIFEST_VERSION,
    key: { namespace: FIXTURE_NAMESPACE, postgresql: 'foodb', backup: 'foodb-1' },
    database: 'foo',
    trigger: 'Scheduled',
    format: 'custom',
    serverVersion: '15.18',
    serverVersionNum: 150018,
    pgDumpVersion: '15.18',
    startedAt: '2026-01-02T03:05:00.250Z',
    finishedAt: '2026-01-02T03:05:01.000Z',
    verifiedAt: '2026-01-02T03:05:02.750Z',
    size: 2048,
    sha256: 'a'.repeat(64),
    ...fields,
  };
}
