import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';

/**
 * Security contexts for the database pods, after the restricted Pod Security Standard
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted), so they are admitted in
 * namespaces that enforce it. The official postgres image supports running as its `postgres` user (UID/GID 999)
 * from the start instead of switching from root; `fsGroup` makes the data volume writable for it. The root
 * filesystem stays writable: PostgreSQL writes its socket and lock files under /var/run/postgresql.
 */

/** The `postgres` user and group of the official image. */
export const POSTGRES_USER_ID = 999;

export function databasePodSecurityContext(): V1PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: POSTGRES_USER_ID,
    runAsGroup: POSTGRES_USER_ID,
    fsGroup: POSTGRES_USER_ID,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function databaseContainerSecurityContext(): V1SecurityContext {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
}
