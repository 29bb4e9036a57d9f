import { type DesiredObject, ownedMetadata, requiredName } from '@k8s-operators/controller-core';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import type { ResolvedPostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { instanceLabels } from './labels.ts';
import { dataClaimName } from './object-names.ts';

/**
 * The claim holding the database's data when `spec.storage` is set; undefined otherwise (the data then lives in an
 * emptyDir, as in the seed). It is owned by the PostgreSQL, so it is deleted with it (after the final backup).
 */
export function desiredDataClaim(postgresql: PostgreSQL, spec: ResolvedPostgreSQLSpec): DesiredObject<V1PersistentVolumeClaim> | undefined {
  const { storage } = spec;
  if (storage === undefined) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: ownedMetadata(postgresql, { name: dataClaimName(postgresql), labels: instanceLabels(requiredName(postgresql)) }),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: storage.size } },
      ...(storage.storageClassName === undefined ? {} : { storageClassName: storage.storageClassName }),
    },
  };
}
