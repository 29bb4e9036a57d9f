import { describe, expect, it } from 'vitest';
import { maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { desiredAppDeployment } from './desired-app-deployment.ts';

const owner = {
  apiVersion: 'maintpage.example.com/v1alpha1',
  kind: 'MaintPage',
  name: 'example',
  uid: '6b0e3a57-3a43-4c39-9d55-6f6d0d8e4b11',
  controller: true,
  blockOwnerDeletion: true,
};

describe('desiredAppDeployment', () => {
  it("builds the seed's Deployment: named appname, one replica, container appname with appimage", () => {
    expect(desiredAppDeployment(resolved(maintPageFixture()))).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'httpd',
        namespace: 'maintpage-operator',
        labels: { app: 'httpd', 'maintpage.example.com/instance': 'example', 'maintpage.example.com/role': 'app' },
        annotations: { 'maintpage.example.com/applied-appimage': 'quay.io/daein/prodpage:latest' },
        ownerReferences: [owner],
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'maintpage.example.com/instance': 'example', 'maintpage.example.com/role': 'app' } },
        template: {
          metadata: {
            labels: { app: 'httpd', 'maintpage.example.com/instance': 'example', 'maintpage.example.com/role': 'app' },
          },
          spec: {
            containers: [
              {
                name: 'httpd',
                image: 'quay.io/daein/prodpage:latest',
                ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
                readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 5 },
              },
            ],
          },
        },
      },
    });
  });

  it('takes port and replicas from the spec', () => {
    const deployment = desiredAppDeployment(resolved(maintPageFixture({ appconfig: { port: 3000, replicas: 3 } })));
    expect(deployment.spec?.replicas).toBe(3);
    expect(deployment.spec?.template.spec?.containers[0]?.ports).toEqual([
      { name: 'http', containerPort: 3000, protocol: 'TCP' },
    ]);
  });

  it('does not select the maintenance pods even when the MaintPage and the app share a name', () => {
    const deployment = desiredAppDeployment(resolved(maintPageFixture({ name: 'httpd' })));
    expect(deployment.spec?.selector.matchLabels).toEqual({
      'maintpage.example.com/instance': 'httpd',
      'maintpage.example.com/role': 'app',
    });
  });

  it('refuses a MaintPage without a uid, which could not own anything', () => {
    const maintPage = resolved(maintPageFixture());
    delete maintPage.metadata.uid;
    expect(() => desiredAppDeployment(maintPage)).toThrow(/metadata\.uid/);
  });
});
