import { describe, expect, it } from 'vitest';
import { postgresqlFixture } from '../../test/postgresql-fixture.ts';
import { resolvePostgreSQLSpec } from '../api/resolved-postgresql-spec.ts';
import { desiredDeployment } from './desired-deployment.ts';
import { desiredRestoreCheckPod } from './desired-restore-check-pod.ts';
import { desiredService } from './desired-service.ts';

const postgresql = postgresqlFixture({ spec: { image: 'postgres:16', resources: { limits: { memory: '8Gi' } }, storage: { size: '50Gi' }, backup: { verify: { resources: { requests: { memory: '64Mi' } } } } } });
const spec = resolvePostgreSQLSpec(postgresql.spec);
const pod = desiredRestoreCheckPod(postgresql, spec, spec.backup.verify ?? { schedule: { ok: false, message: '' }, resources: {} }, 'foodb-202601020300');

describe('desiredRestoreCheckPod', () => {
  it("runs the database's own server: its image, user, database and password Secret, under restricted Pod Security", () => {
    const databasePod = desiredDeployment(postgresql, spec).spec?.template.spec;
    const [container] = pod.spec?.containers ?? [];
    const [databaseContainer] = databasePod?.containers ?? [];
    expect(container).toMatchObject({ image: 'postgres:16', env: databaseContainer?.env, readinessProbe: databaseContainer?.readinessProbe });
    expect(pod.spec?.securityContext).toEqual(databasePod?.securityContext);
    expect(pod.spec?.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container?.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(pod.spec).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false, enableServiceLinks: false });
  });

  it("has its own resources and data: never the database's claim", () => {
    expect(pod.spec?.containers[0]?.resources).toEqual({ requests: { memory: '64Mi' } });
    expect(pod.spec?.volumes).toEqual([{ name: 'data', emptyDir: {} }]);
  });

  it('is selected by no Service or Deployment of the database, nor by the seed\'s labels', () => {
    const selects = (selector: Record<string, string>): boolean => Object.entries(selector).every(([key, value]) => pod.metadata.labels?.[key] === value);
    expect(selects(desiredService(postgresql).spec?.selector ?? {})).toBe(false);
    expect(selects(desiredDeployment(postgresql, spec).spec?.selector.matchLabels ?? {})).toBe(false);
    expect(pod.metadata.labels).not.toHaveProperty('name');
    expect(pod.metadata.labels).not.toHaveProperty('managedBy');
    expect(pod.metadata.labels).toMatchObject({ 'exp.wheel.jp/restore-check-of': 'foodb' });
  });

  it('is owned by the PostgreSQL, named once per PostgreSQL, and names the backup it restores', () => {
    expect(pod.metadata).toMatchObject({
      name: 'foodb-restore-check',
      namespace: 'shop',
      ownerReferences: [{ kind: 'PostgreSQL', name: 'foodb', controller: true }],
      annotations: { 'exp.wheel.jp/restore-check-backup': 'foodb-202601020300' },
    });
  });
});
