import { type DesiredObject, ownedMetadata, requiredName } from '@k8s-operators/controller-core';
import type { V1Service } from '@kubernetes/client-node';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { POSTGRES_PORT } from '../postgres/connection.ts';
import { instanceLabels, servingSelector } from './labels.ts';

/** The name of the PostgreSQL port on the container and the Service. */
export const POSTGRES_PORT_NAME = 'postgresql';

/**
 * The Service named after the PostgreSQL, on port 5432 as in the seed, selecting only pods labelled `appReady: ok`:
 * a pod gets that label once its database is restored, so clients never reach an empty or half-restored database.
 *
 * Unlike the seed's NodePort, it is a ClusterIP Service: a NodePort would open the database on every node of the
 * cluster. `kubectl port-forward svc/<name> 5432` reaches it from outside (and also picks only restored pods).
 */
export function desiredService(postgresql: PostgreSQL): DesiredObject<V1Service> {
  const name = requiredName(postgresql);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: ownedMetadata(postgresql, { name, labels: instanceLabels(name) }),
    spec: {
      type: 'ClusterIP',
      ports: [{ name: POSTGRES_PORT_NAME, protocol: 'TCP', port: POSTGRES_PORT, targetPort: POSTGRES_PORT_NAME }],
      selector: servingSelector(name),
    },
  };
}
