import { chmod, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeApi } from '../kube-api.ts';
import { runListWatch } from '../watch-loop.ts';

export const PROVISIONER_NAME = 'testkit.local/hostpath';
export const DEFAULT_STORAGE_CLASS = 'standard';

interface Claim {
  metadata: { name: string; namespace: string; uid: string; annotations?: Record<string, string>; resourceVersion?: string };
  spec: { storageClassName?: string; volumeName?: string; accessModes?: string[]; resources?: { requests?: Record<string, string> }; volumeMode?: string };
  status?: { phase?: string };
}
interface Volume {
  metadata: { name: string; annotations?: Record<string, string>; resourceVersion?: string };
  spec: { persistentVolumeReclaimPolicy?: string; hostPath?: { path: string } };
  status?: { phase?: string };
}

/**
 * A dynamic provisioner for the default StorageClass: each claim gets a directory on this machine as a
 * hostPath PersistentVolume (kube-controller-manager binds it); released volumes with reclaim policy Delete
 * are removed with their data, as a cloud disk would be.
 */
export class HostPathProvisioner {
  readonly #api: KubeApi;
  readonly #dir: string;
  readonly #abort = new AbortController();
  readonly #provisioned = new Set<string>();

  constructor(api: KubeApi, dir: string) {
    this.#api = api;
    this.#dir = dir;
  }

  async start(): Promise<void> {
    const existing = await this.#api.get(`/apis/storage.k8s.io/v1/storageclasses/${DEFAULT_STORAGE_CLASS}`);
    if (!existing) {
      await this.#api.create('/apis/storage.k8s.io/v1/storageclasses', {
        apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
        metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: PROVISIONER_NAME, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate',
      });
    }
    const claims = (items: Claim[]): void => { for (const c of items) void this.#provision(c); };
    void runListWatch<Claim>(this.#api, '/api/v1/persistentvolumeclaims', { onList: claims, onEvent: (e) => { if (e.type !== 'DELETED') claims([e.object]); } }, this.#abort.signal);
    const volumes = (items: Volume[]): void => { for (const v of items) void this.#reclaim(v); };
    void runListWatch<Volume>(this.#api, '/api/v1/persistentvolumes', { onList: volumes, onEvent: (e) => { if (e.type !== 'DELETED') volumes([e.object]); } }, this.#abort.signal);
  }

  async #provision(claim: Claim): Promise<void> {
    const className = claim.spec.storageClassName;
    const asked = claim.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'] === PROVISIONER_NAME || className === DEFAULT_STORAGE_CLASS;
    if (!asked || claim.spec.volumeName || claim.status?.phase !== 'Pending' || this.#provisioned.has(claim.metadata.uid)) return;
    this.#provisioned.add(claim.metadata.uid);
    const name = `pvc-${claim.metadata.uid}`;
    const path = join(this.#dir, 'volumes', name);
    await mkdir(path, { recursive: true });
    // World-writable whatever the umask, as local-path-provisioner (kind's) makes its volumes: hostPath volumes get no
    // fsGroup ownership from the kubelet, so a non-root container could not write otherwise.
    await chmod(path, 0o777);
    await this.#api.create('/api/v1/persistentvolumes', {
      apiVersion: 'v1', kind: 'PersistentVolume',
      metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER_NAME } },
      spec: {
        capacity: { storage: claim.spec.resources?.requests?.storage ?? '1Gi' },
        accessModes: claim.spec.accessModes ?? ['ReadWriteOnce'], volumeMode: claim.spec.volumeMode ?? 'Filesystem',
        persistentVolumeReclaimPolicy: 'Delete', storageClassName: className ?? DEFAULT_STORAGE_CLASS,
        hostPath: { path, type: 'Directory' },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid },
      },
    }).catch(() => undefined);
  }

  async #reclaim(volume: Volume): Promise<void> {
    const ours = volume.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] === PROVISIONER_NAME;
    if (!ours || volume.status?.phase !== 'Released' || volume.spec.persistentVolumeReclaimPolicy !== 'Delete') return;
    if (volume.spec.hostPath?.path) await rm(volume.spec.hostPath.path, { recursive: true, force: true });
    await this.#api.delete(`/api/v1/persistentvolumes/${volume.metadata.name}`);
  }

  stop(): void {
    this.#abort.abort();
  }
}
