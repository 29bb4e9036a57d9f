import { S3_ACCESS_KEY_ID_KEY, S3_SECRET_ACCESS_KEY_KEY } from '../api/s3-credentials-secret.ts';
import type { CaBundleSource, ResolvedS3Store } from '../api/resolved-s3-store.ts';
import type { S3BackupStoreOptions } from './s3-store.ts';
import type { BackupStore } from './store.ts';

/**
 * From `spec.backup.s3` and the objects it names to an S3 backup store. The controller reads the credentials Secret
 * (and the CA bundle's ConfigMap or Secret, if any) with `get`s in the PostgreSQL's namespace and hands their `data`
 * here; these functions only check and decode it, so every mistake a user can make has a message saying what to fix.
 */

export class S3StoreConfigurationError extends Error {
  override name = 'S3StoreConfigurationError';
}

/** `data` of a Secret or ConfigMap as the API returns it (Secret values are base64). */
export type ObjectData = Readonly<Record<string, string>> | undefined;

/** The decoded value of `key` in a Secret's data, or an error that names the Secret and the key. */
function secretValue(namespace: string, secret: string, data: ObjectData, key: string, what: string): string {
  const encoded = data?.[key];
  if (encoded === undefined) {
    throw new S3StoreConfigurationError(`Secret ${namespace}/${secret} has no key ${key}: add ${what} under that key`);
  }
  const value = Buffer.from(encoded, 'base64').toString('utf8').trim();
  if (value === '') throw new S3StoreConfigurationError(`Secret ${namespace}/${secret}: ${key} is empty: set ${what}`);
  return value;
}

export interface S3StoreInputs {
  /** The PostgreSQL's namespace, where the Secret and the CA bundle's object are read. */
  namespace: string;
  /** `data` of the Secret that `spec.backup.s3.credentialsSecret` names. */
  credentialsSecretData: ObjectData;
  /**
   * `data` of the ConfigMap (plain text) or Secret (base64) that `spec.backup.s3.caBundle` names; undefined when the
   * spec names none.
   */
  caBundleData?: ObjectData;
}

/** The options of the store at `store.location`: credentials decoded from the Secret, the CA bundle from its ConfigMap or Secret. */
export function s3StoreOptions(store: ResolvedS3Store, inputs: S3StoreInputs): S3BackupStoreOptions {
  const { namespace } = inputs;
  const secret = store.credentialsSecret;
  const credentials = {
    accessKeyId: secretValue(namespace, secret, inputs.credentialsSecretData, S3_ACCESS_KEY_ID_KEY, 'the access key id'),
    secretAccessKey: secretValue(namespace, secret, inputs.credentialsSecretData, S3_SECRET_ACCESS_KEY_KEY, 'the secret access key'),
  };
  return {
    ...store.location,
    credentials,
    ...(store.caBundle === undefined ? {} : { caBundle: caBundle(store.caBundle, namespace, inputs.caBundleData) }),
  };
}

function caBundle(source: CaBundleSource, namespace: string, data: ObjectData): string {
  const { configMapKeyRef, secretKeyRef } = source;
  let pem: string | undefined;
  let where: string;
  if (configMapKeyRef !== undefined) {
    where = `ConfigMap ${namespace}/${configMapKeyRef.name} key ${configMapKeyRef.key}`;
    pem = data?.[configMapKeyRef.key];
  } else if (secretKeyRef !== undefined) {
    where = `Secret ${namespace}/${secretKeyRef.name} key ${secretKeyRef.key}`;
    const encoded = data?.[secretKeyRef.key];
    pem = encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
  } else {
    throw new S3StoreConfigurationError('spec.backup.s3.caBundle names neither a ConfigMap nor a Secret');
  }
  if (pem === undefined) throw new S3StoreConfigurationError(`the CA bundle's ${where} does not exist: add the CA's PEM certificates there`);
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new S3StoreConfigurationError(`the CA bundle's ${where} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return pem;
}

/**
 * The S3 store itself. The AWS SDK is loaded here, on first use, so an operator that only uses the backup volume never
 * pays its memory (about 30 MiB).
 */
export async function openS3BackupStore(options: S3BackupStoreOptions): Promise<BackupStore> {
  const { S3BackupStore } = await import('./s3-store.ts');
  return new S3BackupStore(options);
}
