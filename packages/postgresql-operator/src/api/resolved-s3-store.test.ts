import { describe, expect, it } from 'vitest';
import { resolveS3Store, s3StoreRecord } from './resolved-s3-store.ts';

describe('resolveS3Store', () => {
  it('builds the location once, with the defaults, apart from the objects holding the secrets', () => {
    expect(resolveS3Store({ bucket: 'backups', credentialsSecret: 's3-credentials' })).toEqual({
      location: { bucket: 'backups', prefix: '', region: 'us-east-1', forcePathStyle: false },
      credentialsSecret: 's3-credentials',
    });
    const caBundle = { secretKeyRef: { name: 'store-ca', key: 'ca.crt' } };
    expect(
      resolveS3Store({ bucket: 'pg', prefix: 'postgresql/', endpoint: 'https://minio.storage.svc:9000', region: 'eu-west-1', forcePathStyle: true, credentialsSecret: 'c', caBundle }),
    ).toEqual({
      location: { bucket: 'pg', prefix: 'postgresql/', endpoint: 'https://minio.storage.svc:9000', region: 'eu-west-1', forcePathStyle: true },
      credentialsSecret: 'c',
      caBundle,
    });
  });
});

describe('s3StoreRecord', () => {
  it('records every field with its default, as status.s3 always held it, and resolves back to the same store', () => {
    const store = resolveS3Store({ bucket: 'backups', credentialsSecret: 's3-credentials' });
    const record = s3StoreRecord(store);
    expect(record).toEqual({ bucket: 'backups', prefix: '', region: 'us-east-1', forcePathStyle: false, credentialsSecret: 's3-credentials' });
    expect(resolveS3Store(record)).toEqual(store);
    const withCa = resolveS3Store({ bucket: 'pg', endpoint: 'https://s3.example', credentialsSecret: 'c', caBundle: { configMapKeyRef: { name: 'ca', key: 'ca.crt' } } });
    expect(s3StoreRecord(withCa)).toEqual({
      bucket: 'pg', prefix: '', endpoint: 'https://s3.example', region: 'us-east-1', forcePathStyle: false, credentialsSecret: 'c', caBundle: { configMapKeyRef: { name: 'ca', key: 'ca.crt' } },
    });
  });
});
