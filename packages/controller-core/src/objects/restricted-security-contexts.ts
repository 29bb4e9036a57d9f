import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';

/**
 * Security contexts that pass the restricted Pod Security Standard
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted), so the pods are admitted in
 * namespaces that enforce it: non-root, the runtime's default seccomp profile, no privilege escalation, no
 * capabilities. What the standard leaves open (which user, a writable volume, a read-only root) depends on the image,
 * so the caller chooses it where it builds the pod, and says why there.
 */

export interface RestrictedPodOptions {
  /**
   * `runAsUser` and `runAsGroup`: the image's non-root user, for images whose user and group share one id. Left out,
   * the image's own USER applies (and the kubelet refuses to start it if that is root).
   */
  runAsUserAndGroup?: number;
  /** `fsGroup`: the group that owns the pod's volumes, so a non-root user can write them. */
  fsGroup?: number;
}

export function restrictedPodSecurityContext({ runAsUserAndGroup, fsGroup }: RestrictedPodOptions = {}): V1PodSecurityContext {
  return {
    runAsNonRoot: true,
    ...(runAsUserAndGroup === undefined ? {} : { runAsUser: runAsUserAndGroup, runAsGroup: runAsUserAndGroup }),
    ...(fsGroup === undefined ? {} : { fsGroup }),
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export interface RestrictedContainerOptions {
  /** Whether the container's root filesystem is read-only: for images that write only to their volumes. */
  readOnlyRootFilesystem?: boolean;
}

export function restrictedContainerSecurityContext({ readOnlyRootFilesystem = false }: RestrictedContainerOptions = {}): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    ...(readOnlyRootFilesystem ? { readOnlyRootFilesystem: true } : {}),
  };
}
