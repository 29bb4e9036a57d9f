import { type DesiredObject, ownedMetadata, requiredName, restrictedContainerSecurityContext, restrictedPodSecurityContext } from '@k8s-operators/controller-core';
import type { V1Deployment, V1PodSpec, V1Volume } from '@kubernetes/client-node';
import { PASSWORD_SECRET_KEY } from '../api/password-secret.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { ContainerResources, ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { POSTGRES_PORT } from '../postgres/connection.ts';
import { POSTGRES_PORT_NAME } from './desired-service.ts';
import { instanceLabels, podSelector } from './labels.ts';
import { dataClaimName } from './object-names.ts';

/** Where the data volume is mounted: the official image's data directory, as in the seed. */
export const DATA_MOUNT_PATH = '/var/lib/postgresql/data';
/**
 * PGDATA is a directory below the mount point, as the official image advises for volumes: the root of a fresh
 * volume may hold `lost+found`, and initdb refuses a directory that is not empty.
 */
export const PGDATA = `${DATA_MOUNT_PATH}/pgdata`;
export const CONTAINER_NAME = 'postgresql';
export const DATA_VOLUME = 'data';
/** The `postgres` user and group of the official image. */
const POSTGRES_USER_ID = 999;

/**
 * The database Deployment, named after the PostgreSQL as in the seed: one replica, container `postgresql` with the
 * official image's environment (user, database, and the password from the Secret `spec.password` names, by reference,
 * so it never appears in the Deployment), data in an emptyDir or on the claim `<name>-data`.
 *
 * Added since the seed:
 * - `Recreate`: two pods of one database never run at once (a second one on the same claim would corrupt it, and a
 *   second one on an emptyDir would be restored from an older backup and serve next to the first).
 * - A readiness probe (`pg_isready`): the operator restores a pod only once its server accepts connections.
 * - The restricted Pod Security Standard's settings, so the pods are admitted in namespaces that enforce it. The
 *   official postgres image supports running as its `postgres` user (UID/GID 999) from the start instead of switching
 *   from root; `fsGroup` makes the data volume writable for it. The root filesystem stays writable: PostgreSQL writes
 *   its socket and lock files under /var/run/postgresql.
 * - Resources from `spec.resources`, no service links.
 */
export function desiredDeployment(postgresql: PostgreSQL, spec: ResolvedPostgreSQLSpec): DesiredObject<V1Deployment> {
  const name = requiredName(postgresql);
  const dataVolume: V1Volume = spec.storage === undefined
    ? { name: DATA_VOLUME, emptyDir: {} }
    : { name: DATA_VOLUME, persistentVolumeClaim: { claimName: dataClaimName(postgresql) } };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ownedMetadata(postgresql, { name, labels: instanceLabels(name) }),
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: podSelector(name) },
      template: {
        metadata: { labels: instanceLabels(name) },
        spec: databasePodSpec(spec, { dataVolume, ...(spec.resources === undefined ? {} : { resources: spec.resources }) }),
      },
    },
  };
}

/**
 * The pod of a PostgreSQL server as the operator runs it: the database Deployment's pods and a restore drill's scratch
 * pod alike. The official image's environment (user, database, and the password by reference to the Secret
 * `spec.password` names), its `postgres` user under the restricted Pod Security Standard, a `pg_isready` readiness
 * probe, the data in `dataVolume`, no service links.
 */
export function databasePodSpec(spec: ResolvedPostgreSQLSpec, pod: { dataVolume: V1Volume; resources?: ContainerResources }): V1PodSpec {
  return {
    enableServiceLinks: false,
    securityContext: restrictedPodSecurityContext({ runAsUserAndGroup: POSTGRES_USER_ID, fsGroup: POSTGRES_USER_ID }),
    containers: [
      {
        name: CONTAINER_NAME,
        image: spec.image,
        ports: [{ name: POSTGRES_PORT_NAME, containerPort: POSTGRES_PORT, protocol: 'TCP' }],
        env: [
          { name: 'POSTGRES_USER', value: spec.user },
          { name: 'POSTGRES_DB', value: spec.db },
          { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: spec.password, key: PASSWORD_SECRET_KEY } } },
          { name: 'PGDATA', value: PGDATA },
        ],
        readinessProbe: {
          exec: { command: ['pg_isready', '-U', spec.user, '-d', spec.db] },
          periodSeconds: 2,
          timeoutSeconds: 5,
        },
        ...(pod.resources === undefined ? {} : { resources: pod.resources }),
        securityContext: restrictedContainerSecurityContext(),
        volumeMounts: [{ name: DATA_VOLUME, mountPath: DATA_MOUNT_PATH }],
      },
    ],
    volumes: [pod.dataVolume],
  };
}
