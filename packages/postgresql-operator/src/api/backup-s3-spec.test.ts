// spec.backup.s3 on a real API server: the seed's manifest still applies with the volume store, S3 defaults are filled
// in, and the CEL rules refuse bad input with messages that say what to fix.
import { join } from 'node:path';
import { TestCluster } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRD_FILES } from './crd-files.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await TestCluster.start({ node: false });
  expect((await cluster.kubectl(['apply', '-k', CRD_FILES.directory])).stderr).toBe('');
  await cluster.waitForCrdsEstablished(['postgresqls.exp.wheel.jp']);
});
afterAll(async () => {
  await cluster.stop();
});

const withS3 = (name: string, s3: string): string =>
  `apiVersion: exp.wheel.jp/v1\nkind: PostgreSQL\nmetadata: {name: ${name}}\n` +
  `spec: {db: foo, user: foo, password: foodb-password, backup: {s3: ${s3}}}\n`;

async function backupOf(name: string): Promise<Record<string, unknown>> {
  const result = await cluster.kubectl(['get', 'pg', name, '-o', 'jsonpath={.spec.backup}']);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('spec.backup.s3 on the API server', () => {
  it('is absent from the seed\'s db-for-foo.yaml, which keeps the backup volume', async () => {
    const result = await cluster.kubectl(['apply', '-f', join(CRD_FILES.directory, '..', 'samples', 'db-for-foo.yaml')]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(await backupOf('foodb')).not.toHaveProperty('s3');
  });

  it('fills in the region and path style, and keeps what is set', async () => {
    const applied = await cluster.kubectl(['apply', '-f', '-'], {
      input: withS3('ins3', '{bucket: backups, credentialsSecret: s3-credentials, endpoint: "https://minio.storage.svc:9000", caBundle: {configMapKeyRef: {name: store-ca, key: ca.crt}}}'),
    });
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect((await backupOf('ins3')).s3).toEqual({
      bucket: 'backups',
      credentialsSecret: 's3-credentials',
      endpoint: 'https://minio.storage.svc:9000',
      region: 'us-east-1',
      forcePathStyle: false,
      caBundle: { configMapKeyRef: { name: 'store-ca', key: 'ca.crt' } },
    });
  });

  it.each([
    ['{credentialsSecret: c}', 'spec.backup.s3.bucket: Required value'],
    ['{bucket: backups}', 'spec.backup.s3.credentialsSecret: Required value'],
    ['{bucket: Backups_2024, credentialsSecret: c}', "s3.bucket must be an S3 bucket name: lowercase letters, digits, '.' and '-'"],
    ['{bucket: backups, credentialsSecret: "accessKeyId: AKIA"}', 's3.credentialsSecret must be a Kubernetes object name'],
    ['{bucket: backups, credentialsSecret: c, endpoint: "minio:9000"}', 's3.endpoint must be a URL starting with https:// (or http:// for a store without TLS)'],
    ['{bucket: backups, credentialsSecret: c, caBundle: {}}', 'caBundle needs exactly one of configMapKeyRef and secretKeyRef'],
    [
      '{bucket: backups, credentialsSecret: c, caBundle: {configMapKeyRef: {name: a, key: k}, secretKeyRef: {name: b, key: k}}}',
      'caBundle needs exactly one of configMapKeyRef and secretKeyRef',
    ],
  ])('refuses s3: %s', async (s3, message) => {
    const result = await cluster.kubectl(['apply', '-f', '-'], { input: withS3('bad', s3) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});
