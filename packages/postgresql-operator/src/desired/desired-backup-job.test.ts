import { describe, expect, it } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import type { PostgreSQLBackup } from '../api/postgresql-backup-resource.ts';
import { resolvePostgreSQLBackup } from '../api/resolved-postgresql-backup.ts';
import { resolvePostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { resolveS3Store } from '../api/resolved-s3-store.ts';
import { parseBackupJobInput } from '../backup-job/backup-job-contract.ts';
import { backupJobName, desiredBackupJob, desiredBackupServiceAccount, type BackupJobTarget } from './desired-backup-job.ts';

const backupNamed = (name: string): PostgreSQLBackup => ({
  apiVersion: 'exp.wheel.jp/v1',
  kind: 'PostgreSQLBackup',
  metadata: { name, namespace: 'shop', uid: 'b-uid' },
  spec: { postgresql: 'foodb', trigger: 'OnDemand' },
});
const s3 = resolveS3Store({ bucket: 'pg', endpoint: 'https://s3.example:8333', forcePathStyle: true, credentialsSecret: 's3-credentials', caBundle: { configMapKeyRef: { name: 's3-ca', key: 'ca.crt' } } });

const volume: BackupJobTarget = { kind: 'volume', endpoint: { url: 'https://10.0.0.9:8443', serverName: 'postgresql-operator-backup-store.postgresql-operator-system.svc', ca: '-----BEGIN CERTIFICATE-----\n…' } };

function jobFor(spec: Parameters<typeof postgresqlFixture>[0] = {}, target: BackupJobTarget = { kind: 's3', s3 }) {
  const postgresql = postgresqlFixture(spec);
  const backup = backupNamed('foodb-1');
  return desiredBackupJob({ backup, trigger: resolvePostgreSQLBackup(backup).trigger, postgresql, spec: resolvePostgreSQLSpec(postgresql.spec), target, podIP: '10.0.0.7', image: 'registry.example/postgresql-operator:1.2.3' });
}

describe('desiredBackupJob', () => {
  it('is named after its backup and owned by it, runs once with the operator image, and carries no secret', () => {
    const job = jobFor();
    expect(job.metadata).toMatchObject({ name: 'foodb-1-backup', namespace: 'shop', ownerReferences: [{ kind: 'PostgreSQLBackup', name: 'foodb-1', uid: 'b-uid', controller: true }] });
    expect(job.metadata.labels).toMatchObject({ 'exp.wheel.jp/backup-of': 'foodb' });
    // A Job Pod is no database pod: the Deployment's and the Service's selectors must never match it.
    expect(job.spec?.template.metadata?.labels).not.toHaveProperty('exp.wheel.jp/postgresql');
    expect(job.spec).toMatchObject({ backoffLimit: 0, ttlSecondsAfterFinished: 86_400 });
    const [container] = job.spec?.template.spec?.containers ?? [];
    expect(container?.image).toBe('registry.example/postgresql-operator:1.2.3');
    expect(container?.args?.[0]).toBe('backup-job');
    const input = parseBackupJobInput(container?.env?.[0]?.value);
    expect(input).toEqual({
      key: { namespace: 'shop', postgresql: 'foodb', backup: 'foodb-1' },
      trigger: 'OnDemand',
      connection: { host: '10.0.0.7', port: 5432, database: 'foo', user: 'foo' },
      store: { kind: 's3', bucket: 'pg', prefix: '', endpoint: 'https://s3.example:8333', region: 'us-east-1', forcePathStyle: true, caBundle: true },
    });
    expect(container?.env).toHaveLength(1);
  });

  it('hands the Job the recipients to encrypt to, never the identity; an empty list encrypts nothing', () => {
    const recipients = [`age1${'q'.repeat(58)}`, `age1${'p'.repeat(58)}`];
    const identitySecretRef = { name: 'foodb-age-identity' };
    const encrypted = jobFor({ spec: { backup: { encryption: { recipients, identitySecretRef } } } });
    const [container] = encrypted.spec?.template.spec?.containers ?? [];
    expect(parseBackupJobInput(container?.env?.[0]?.value).encryption).toEqual({ recipients });
    expect(JSON.stringify(encrypted)).not.toContain('foodb-age-identity');
    const stopped = jobFor({ spec: { backup: { encryption: { identitySecretRef } } } });
    expect(parseBackupJobInput(stopped.spec?.template.spec?.containers[0]?.env?.[0]?.value)).not.toHaveProperty('encryption');
  });

  it('to the backup volume: the service\'s address, name and certificate, and a token only that service accepts', () => {
    const job = jobFor({}, volume);
    const [container] = job.spec?.template.spec?.containers ?? [];
    expect(parseBackupJobInput(container?.env?.[0]?.value).store).toEqual({ kind: 'volume', ...volume.endpoint });
    const [secrets] = job.spec?.template.spec?.volumes ?? [];
    expect(secrets?.projected?.sources).toEqual([
      { secret: { name: 'foodb-password', items: [{ key: 'postgresql_password', path: 'password' }] } },
      { serviceAccountToken: { audience: 'postgresql-backup-store', expirationSeconds: 3600, path: 'store-token' } },
    ]);
    // Still no token for the API server.
    expect(job.spec?.template.spec?.automountServiceAccountToken).toBe(false);
  });

  it('mounts the password, the credentials and the CA bundle from the objects the PostgreSQL names', () => {
    const [secrets] = jobFor().spec?.template.spec?.volumes ?? [];
    expect(secrets?.projected?.sources).toEqual([
      { secret: { name: 'foodb-password', items: [{ key: 'postgresql_password', path: 'password' }] } },
      { secret: { name: 's3-credentials', items: [{ key: 'accessKeyId', path: 'accessKeyId' }, { key: 'secretAccessKey', path: 'secretAccessKey' }] } },
      { configMap: { name: 's3-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    ]);
  });

  it('meets the restricted Pod Security Standard and talks to no API server', () => {
    const pod = jobFor().spec?.template.spec;
    expect(pod).toMatchObject({ restartPolicy: 'Never', serviceAccountName: 'foodb-backup', automountServiceAccountToken: false, enableServiceLinks: false });
    expect(pod?.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod?.containers[0]?.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true });
  });

  it('takes resources and the time to keep a failed Job from spec.backup.job, defaults otherwise', () => {
    expect(jobFor().spec?.template.spec?.containers[0]?.resources).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } });
    const job = jobFor({ spec: { backup: { job: { resources: { limits: { cpu: 2, memory: '1Gi' } }, ttlSecondsAfterFinished: 600 } } } });
    expect(job.spec?.template.spec?.containers[0]?.resources).toEqual({ limits: { cpu: '2', memory: '1Gi' } });
    expect(job.spec?.ttlSecondsAfterFinished).toBe(600);
  });
});

describe('backupJobName', () => {
  it('fits a label value, and two long names that share their beginning get different Jobs', () => {
    const long = `${'a'.repeat(70)}-1`;
    const other = `${'a'.repeat(70)}-2`;
    expect(backupJobName(backupNamed(long))).toHaveLength(63);
    expect(backupJobName(backupNamed(long))).toMatch(/^a+-[0-9a-f]{8}-backup$/);
    expect(backupJobName(backupNamed(long))).not.toBe(backupJobName(backupNamed(other)));
  });
});

describe('desiredBackupServiceAccount', () => {
  it('belongs to the PostgreSQL and mounts no token', () => {
    expect(desiredBackupServiceAccount(postgresqlFixture())).toMatchObject({
      metadata: { name: 'foodb-backup', namespace: 'shop', ownerReferences: [{ kind: 'PostgreSQL', name: 'foodb' }] },
      automountServiceAccountToken: false,
    });
  });
});
