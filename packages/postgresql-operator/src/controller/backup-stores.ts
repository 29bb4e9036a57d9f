import { createHash } from 'node:crypto';
import { Resources, type KubeClient } from '@k8s-operators/controller-core';
import type { ResolvedS3Store } from '../api/resolved-s3-store.ts';
import { openS3BackupStore, s3StoreOptions, S3StoreConfigurationError, type ObjectData } from '../stores/s3-store-options.ts';
import type { BackupStore } from '../stores/store.ts';
import { getNamedObject } from './get-named-object.ts';

/**
 * Which store holds a PostgreSQL's backups: the operator's backup volume, or the S3 bucket its `spec.backup.s3` names.
 * A backup records the S3 store it was written to (`status.s3`), so its dump is found, and deleted, in that store even
 * after the PostgreSQL changed stores or is gone. The Secret with the credentials, and a CA bundle's ConfigMap or
 * Secret, are read with `get` each time (the operator lists and watches neither); an S3 store is built once per
 * configuration and reused while its inputs are unchanged.
 */

export type StoreLookup = { ok: true; store: BackupStore } | { ok: false; message: string };

/** S3 stores kept at once: one per configuration in use; beyond that, the least recently used goes. */
const MAX_S3_STORES = 64;

export class BackupStores {
  readonly #client: KubeClient;
  readonly #volume: BackupStore;
  readonly #s3 = new Map<string, BackupStore>();

  constructor(client: KubeClient, volume: BackupStore) {
    this.#client = client;
    this.#volume = volume;
  }

  /**
   * The store `s3` names in `namespace`, the backup volume when it names none. A PostgreSQL's resolved
   * `spec.backup.s3` is where its new backups go and its restores come from; a backup's resolved `status.s3` is where
   * its dump was written.
   */
  async lookup(namespace: string, s3: ResolvedS3Store | undefined): Promise<StoreLookup> {
    if (s3 === undefined) return { ok: true, store: this.#volume };
    try {
      const credentials = await this.#read(Resources.Secret, namespace, s3.credentialsSecret, 'spec.backup.s3.credentialsSecret');
      const source = s3.caBundle;
      const caBundle =
        source?.configMapKeyRef !== undefined
          ? await this.#read(Resources.ConfigMap, namespace, source.configMapKeyRef.name, 'spec.backup.s3.caBundle.configMapKeyRef')
          : source?.secretKeyRef !== undefined
            ? await this.#read(Resources.Secret, namespace, source.secretKeyRef.name, 'spec.backup.s3.caBundle.secretKeyRef')
            : undefined;
      const options = s3StoreOptions(s3, { namespace, credentialsSecretData: credentials, ...(source === undefined ? {} : { caBundleData: caBundle }) });
      // Keyed by everything the store is built from, secrets hashed: a changed Secret builds a new store.
      const key = createHash('sha256').update(JSON.stringify(options)).digest('hex');
      let store = this.#s3.get(key);
      if (store === undefined) {
        store = await openS3BackupStore(options);
        if (this.#s3.size >= MAX_S3_STORES) this.#s3.delete(this.#s3.keys().next().value ?? '');
      } else {
        this.#s3.delete(key);
      }
      this.#s3.set(key, store);
      return { ok: true, store };
    } catch (error) {
      if (error instanceof S3StoreConfigurationError) return { ok: false, message: error.message };
      throw error;
    }
  }

  /** `data` of the named Secret or ConfigMap; a missing one is a configuration error that names the field. */
  async #read(ref: typeof Resources.Secret | typeof Resources.ConfigMap, namespace: string, name: string, field: string): Promise<ObjectData> {
    const object: { data?: Record<string, string> } | undefined = ref === Resources.Secret
      ? await getNamedObject(this.#client, Resources.Secret, { namespace, name }, field)
      : await getNamedObject(this.#client, Resources.ConfigMap, { namespace, name }, field);
    if (object === undefined) throw new S3StoreConfigurationError(`${ref.kind} ${name} (${field}) was not found in namespace ${namespace}`);
    return object.data;
  }
}
