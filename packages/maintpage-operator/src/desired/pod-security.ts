import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';

/**
 * Security contexts for the maintenance page pods, after the restricted Pod Security Standard
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted), so the pods are admitted in
 * namespaces that enforce it.
 *
 * - Built-in page server: everything restricted asks for, plus a read-only root filesystem and the image's UID/GID
 *   65532 (it writes nothing, and runs as that user).
 * - A user's image (`maintpageimage`, e.g. the seed's httpd-based quay.io/daein/maintpage): runAsNonRoot, RuntimeDefault
 *   seccomp, no privilege escalation and no capabilities, but no user ID (the image's own USER applies) and a
 *   writable root filesystem (web servers write pid and log files). An image that runs as root fails to start with
 *   the kubelet's "image will run as root" message, and the Service stays on the app (WaitingForMaintenancePods).
 *
 * The app's pods get no security context: the app is the user's, as in the seed, and forcing one could break it.
 */

/** The UID and GID of the built-in page server image. */
export const PAGE_SERVER_USER_ID = 65532;

export function pageServerPodSecurityContext(): V1PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: PAGE_SERVER_USER_ID,
    runAsGroup: PAGE_SERVER_USER_ID,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function customImagePodSecurityContext(): V1PodSecurityContext {
  return { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
}

export function restrictedContainerSecurityContext(readOnlyRootFilesystem: boolean): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    ...(readOnlyRootFilesystem ? { readOnlyRootFilesystem: true } : {}),
  };
}
