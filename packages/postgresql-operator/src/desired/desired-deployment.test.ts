import { describe, expect, it } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import type { PostgreSQL } from '../api/postgresql-resource.ts';
import { resolvePostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { desiredDataClaim } from './desired-data-claim.ts';
import { desiredDeployment } from './desired-deployment.ts';

const deploymentOf = (postgresql: PostgreSQL) => desiredDeployment(postgresql, resolvePostgreSQLSpec(postgresql.spec));
const claimOf = (postgresql: PostgreSQL) => desiredDataClaim(postgresql, resolvePostgreSQLSpec(postgresql.spec));

describe('desiredDeployment', () => {
  it("runs the seed's container: one replica of postgres with user, database and the password by reference", () => {
    const deployment = deploymentOf(postgresqlFixture());
    expect(deployment.metadata).toMatchObject({ name: 'foodb', namespace: 'shop', ownerReferences: [{ kind: 'PostgreSQL', name: 'foodb', controller: true }] });
    expect(deployment.spec).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' }, selector: { matchLabels: { 'exp.wheel.jp/postgresql': 'foodb' } } });
    const pod = deployment.spec?.template;
    expect(pod?.metadata?.labels).toMatchObject({ name: 'foodb', managedBy: 'postgresql-operator', 'exp.wheel.jp/postgresql': 'foodb' });
    expect(pod?.metadata?.labels).not.toHaveProperty('appReady');
    const [container] = pod?.spec?.containers ?? [];
    expect(container).toMatchObject({
      name: 'postgresql',
      image: 'postgres:15',
      ports: [{ name: 'postgresql', containerPort: 5432, protocol: 'TCP' }],
      env: [
        { name: 'POSTGRES_USER', value: 'foo' },
        { name: 'POSTGRES_DB', value: 'foo' },
        { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: 'foodb-password', key: 'postgresql_password' } } },
        { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
      ],
      readinessProbe: { exec: { command: ['pg_isready', '-U', 'foo', '-d', 'foo'] } },
      volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
    });
    expect(pod?.spec?.volumes).toEqual([{ name: 'data', emptyDir: {} }]);
  });

  it('meets the restricted Pod Security Standard', () => {
    const pod = deploymentOf(postgresqlFixture()).spec?.template.spec;
    expect(pod?.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 999, runAsGroup: 999, fsGroup: 999, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod?.containers[0]?.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  });

  it('puts the data on the claim when spec.storage is set, and passes resources as quantities', () => {
    const postgresql = postgresqlFixture({ spec: { image: 'postgres:16', storage: { size: '5Gi' }, resources: { requests: { cpu: 1, memory: '256Mi' } } } });
    const pod = deploymentOf(postgresql).spec?.template.spec;
    expect(pod?.volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'foodb-data' } }]);
    expect(pod?.containers[0]).toMatchObject({ image: 'postgres:16', resources: { requests: { cpu: '1', memory: '256Mi' } } });
  });
});

describe('desiredDataClaim', () => {
  it('is absent without spec.storage: the data lives in an emptyDir, as in the seed', () => {
    expect(claimOf(postgresqlFixture())).toBeUndefined();
  });

  it('claims spec.storage.size, of the class given or the default one', () => {
    expect(claimOf(postgresqlFixture({ spec: { storage: { size: '5Gi' } } }))).toMatchObject({
      metadata: { name: 'foodb-data', namespace: 'shop', ownerReferences: [{ kind: 'PostgreSQL', name: 'foodb' }] },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
    });
    expect(claimOf(postgresqlFixture({ spec: { storage: { size: '1Gi', storageClassName: 'fast' } } }))?.spec?.storageClassName).toBe('fast');
  });
});
