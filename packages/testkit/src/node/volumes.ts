import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { V1Container, V1KeyToPath, V1Pod, V1Volume } from '@kubernetes/client-node';
import type { KubeApi } from '../kube-api.ts';
import { ContainerConfigError, type ObjectSource } from './pod-env.ts';

/** A volume as the local node sees it: a directory on this machine standing in for the mount. */
export interface Mount {
  mountPath: string;
  hostPath: string;
  readOnly: boolean;
}

/** A PersistentVolumeClaim that is not bound yet: the Pod waits in ContainerCreating, as on a real node. */
export class VolumeNotReadyError extends Error {}

interface Claim {
  spec?: { volumeName?: string };
  status?: { phase?: string };
}
interface Volume {
  spec?: { hostPath?: { path: string }; local?: { path: string } };
}

async function writeItems(dir: string, data: Record<string, string>, items: V1KeyToPath[] | undefined): Promise<void> {
  const entries = items ? items.filter((i) => i.key in data).map((i) => [i.path, data[i.key] ?? ''] as const) : Object.entries(data);
  for (const [path, value] of entries) {
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, value);
  }
}

async function requestToken(api: KubeApi, pod: V1Pod, audience: string | undefined, expirationSeconds: number): Promise<string> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const serviceAccount = pod.spec?.serviceAccountName ?? 'default';
  const response = await api.create<{ status: { token: string } }>(`/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`, {
    apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest',
    spec: { ...(audience ? { audiences: [audience] } : {}), expirationSeconds,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid } },
  });
  return response.status.token;
}

/** Materialises one Pod volume under `dir`; returns the directory that stands for it. */
async function prepareVolume(volume: V1Volume, dir: string, pod: V1Pod, api: KubeApi, source: ObjectSource): Promise<string> {
  const namespace = pod.metadata?.namespace ?? 'default';
  if (volume.persistentVolumeClaim) {
    const claimName = volume.persistentVolumeClaim.claimName;
    const claim = await api.get<Claim>(`/api/v1/namespaces/${namespace}/persistentvolumeclaims/${claimName}`);
    if (!claim) throw new VolumeNotReadyError(`persistentvolumeclaim "${claimName}" not found`);
    if (claim.status?.phase !== 'Bound' || !claim.spec?.volumeName) throw new VolumeNotReadyError(`persistentvolumeclaim "${claimName}" is not bound yet`);
    const pv = await api.get<Volume>(`/api/v1/persistentvolumes/${claim.spec.volumeName}`);
    const path = pv?.spec?.hostPath?.path ?? pv?.spec?.local?.path;
    if (!path) throw new VolumeNotReadyError(`persistentvolume "${claim.spec.volumeName}" has no hostPath or local path the testkit node can use`);
    return path;
  }
  if (volume.hostPath) return volume.hostPath.path;
  await mkdir(dir, { recursive: true });
  // World-writable as the kubelet makes an emptyDir, whatever the umask: containers run as any user.
  if (volume.emptyDir) await chmod(dir, 0o777);
  if (volume.secret) {
    const data = await source.data('Secret', volume.secret.secretName ?? '', volume.secret.optional ?? false);
    await writeItems(dir, data ?? {}, volume.secret.items);
  } else if (volume.configMap) {
    const data = await source.data('ConfigMap', volume.configMap.name ?? '', volume.configMap.optional ?? false);
    await writeItems(dir, data ?? {}, volume.configMap.items);
  } else if (volume.projected) {
    for (const projection of volume.projected.sources ?? []) {
      if (projection.serviceAccountToken) {
        const t = projection.serviceAccountToken;
        // Pod-bound tokens requested for 3607 s are extended by the API server (as for the kubelet's own).
        await writeItems(dir, { [t.path]: await requestToken(api, pod, t.audience, t.expirationSeconds ?? 3607) }, undefined);
      } else if (projection.configMap) {
        const data = await source.data('ConfigMap', projection.configMap.name ?? '', projection.configMap.optional ?? false);
        await writeItems(dir, data ?? {}, projection.configMap.items);
      } else if (projection.secret) {
        const data = await source.data('Secret', projection.secret.name ?? '', projection.secret.optional ?? false);
        await writeItems(dir, data ?? {}, projection.secret.items);
      } else if (projection.downwardAPI) {
        for (const item of projection.downwardAPI.items ?? []) {
          if (item.fieldRef?.fieldPath === 'metadata.namespace') await writeItems(dir, { [item.path]: namespace }, undefined);
          else if (item.fieldRef?.fieldPath === 'metadata.name') await writeItems(dir, { [item.path]: pod.metadata?.name ?? '' }, undefined);
        }
      }
    }
  } else if (!volume.emptyDir) {
    throw new ContainerConfigError(`volume "${volume.name}" uses a volume type the testkit node does not support`);
  }
  return dir;
}

/** Prepares every Pod volume once; returns the host directory of each by volume name. */
export async function preparePodVolumes(pod: V1Pod, podDir: string, api: KubeApi, source: ObjectSource): Promise<Map<string, string>> {
  const dirs = new Map<string, string>();
  for (const volume of pod.spec?.volumes ?? []) {
    dirs.set(volume.name, await prepareVolume(volume, join(podDir, 'volumes', volume.name), pod, api, source));
  }
  return dirs;
}

export function containerMounts(container: V1Container, volumeDirs: ReadonlyMap<string, string>): Mount[] {
  return (container.volumeMounts ?? []).map((m) => {
    const base = volumeDirs.get(m.name);
    if (!base) throw new ContainerConfigError(`volumeMount "${m.name}" names no volume of the Pod`);
    return { mountPath: m.mountPath.replace(/\/+$/, ''), hostPath: m.subPath ? join(base, m.subPath) : base, readOnly: m.readOnly ?? false };
  });
}

/**
 * Maps a path as the container sees it to this machine. There are no mount namespaces here, so programs get
 * translated paths instead: anything under a mount goes to the volume's directory; anything else, if
 * `rootfs` is given, to the container's private root (its writable layer); otherwise it is left alone.
 */
export function translatePath(path: string, mounts: readonly Mount[], rootfs?: string): string {
  let best: Mount | undefined;
  for (const m of mounts) {
    if ((path === m.mountPath || path.startsWith(`${m.mountPath}/`)) && (!best || m.mountPath.length > best.mountPath.length)) best = m;
  }
  if (best) return best.hostPath + path.slice(best.mountPath.length);
  return rootfs && path.startsWith('/') ? join(rootfs, path) : path;
}

/** Translates argument and env values that name a path under one of the container's mounts. */
export function translateMountedPaths(value: string, mounts: readonly Mount[]): string {
  return value.startsWith('/') ? translatePath(value, mounts) : value.replace(/(^|=)(\/[^\s,:]*)/g, (_, lead: string, p: string) => lead + translatePath(p, mounts));
}
