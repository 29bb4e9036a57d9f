import { join } from 'node:path';
import { packagesLoadedBy } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';
import type { ResolvedS3Store } from '../api/resolved-s3-store.ts';
import { S3BackupStore } from './s3-store.ts';
import { openS3BackupStore, s3StoreOptions } from './s3-store-options.ts';

const base64 = (text: string): string => Buffer.from(text).toString('base64');
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

const spec: ResolvedS3Store = {
  location: { bucket: 'backups', prefix: 'postgresql/', endpoint: 'https://minio.storage.svc:9000', region: 'us-east-1', forcePathStyle: true },
  credentialsSecret: 's3-credentials',
};
const credentialsSecretData = { accessKeyId: base64('AKIAEXAMPLE'), secretAccessKey: base64('s3cr3t\n') };

describe('s3StoreOptions', () => {
  it('takes the store from the spec and the credentials from the Secret', () => {
    expect(s3StoreOptions(spec, { namespace: 'shop', credentialsSecretData })).toEqual({
      bucket: 'backups',
      prefix: 'postgresql/',
      endpoint: 'https://minio.storage.svc:9000',
      region: 'us-east-1',
      forcePathStyle: true,
      // A trailing newline (echo without -n into kubectl create secret) is not part of a key.
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 's3cr3t' },
    });
  });

  it('says which Secret lacks which key, without printing the other', () => {
    expect(() => s3StoreOptions(spec, { namespace: 'shop', credentialsSecretData: { accessKeyId: base64('AKIAEXAMPLE') } })).toThrow(
      'Secret shop/s3-credentials has no key secretAccessKey: add the secret access key under that key',
    );
    expect(() => s3StoreOptions(spec, { namespace: 'shop', credentialsSecretData: undefined })).toThrow(
      'Secret shop/s3-credentials has no key accessKeyId: add the access key id under that key',
    );
    expect(() => s3StoreOptions(spec, { namespace: 'shop', credentialsSecretData: { ...credentialsSecretData, secretAccessKey: '' } })).toThrow(
      'Secret shop/s3-credentials: secretAccessKey is empty: set the secret access key',
    );
  });

  it('reads the CA bundle from a ConfigMap as text or from a Secret as base64', () => {
    const fromConfigMap = s3StoreOptions(
      { ...spec, caBundle: { configMapKeyRef: { name: 'store-ca', key: 'ca.crt' } } },
      { namespace: 'shop', credentialsSecretData, caBundleData: { 'ca.crt': PEM } },
    );
    expect(fromConfigMap.caBundle).toBe(PEM);
    const fromSecret = s3StoreOptions(
      { ...spec, caBundle: { secretKeyRef: { name: 'store-ca', key: 'ca.crt' } } },
      { namespace: 'shop', credentialsSecretData, caBundleData: { 'ca.crt': base64(PEM) } },
    );
    expect(fromSecret.caBundle).toBe(PEM);
  });

  it('refuses a CA bundle that is missing or holds no certificate, rather than fall back to the public roots', () => {
    const withCa = { ...spec, caBundle: { configMapKeyRef: { name: 'store-ca', key: 'ca.crt' } } };
    expect(() => s3StoreOptions(withCa, { namespace: 'shop', credentialsSecretData, caBundleData: {} })).toThrow(
      "the CA bundle's ConfigMap shop/store-ca key ca.crt does not exist: add the CA's PEM certificates there",
    );
    expect(() => s3StoreOptions(withCa, { namespace: 'shop', credentialsSecretData, caBundleData: { 'ca.crt': 'hello' } })).toThrow(
      "the CA bundle's ConfigMap shop/store-ca key ca.crt holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
    );
  });

  it('opens the S3 store on demand, so that an operator on the backup volume never loads the AWS SDK', async () => {
    const store = await openS3BackupStore(s3StoreOptions(spec, { namespace: 'shop', credentialsSecretData }));
    expect(store).toBeInstanceOf(S3BackupStore);
    const loaded = await packagesLoadedBy(join(import.meta.dirname, '..', 'main.ts'), ['--help']);
    expect(loaded).toContain('pg'); // the check sees the packages the operator does load
    expect(loaded).not.toContain('@aws-sdk/client-s3');
  });
});
