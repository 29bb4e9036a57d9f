import { describe, expect, it } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import { desiredService } from './desired-service.ts';

describe('desiredService', () => {
  it("is named after the PostgreSQL, on the seed's port 5432, and selects restored pods only", () => {
    expect(desiredService(postgresqlFixture())).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'foodb',
        namespace: 'shop',
        labels: {
          name: 'foodb',
          managedBy: 'postgresql-operator',
          'exp.wheel.jp/postgresql': 'foodb',
          'app.kubernetes.io/name': 'postgresql',
          'app.kubernetes.io/instance': 'foodb',
          'app.kubernetes.io/managed-by': 'postgresql-operator',
        },
        ownerReferences: [{ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', name: 'foodb', uid: '0b7c6a1e-5d3f-4c2a-9e8b-1f2a3b4c5d6e', controller: true, blockOwnerDeletion: true }],
      },
      spec: {
        type: 'ClusterIP',
        ports: [{ name: 'postgresql', protocol: 'TCP', port: 5432, targetPort: 'postgresql' }],
        selector: { 'exp.wheel.jp/postgresql': 'foodb', appReady: 'ok' },
      },
    });
  });
});
