import { describe, expect, it } from 'vitest';
import { maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { desiredService } from './desired-service.ts';

describe('desiredService', () => {
  it("keeps the seed's name and port (8080, named 8080-tcp) and targets the pods' named port", () => {
    const service = desiredService(resolved(maintPageFixture()), 'app');
    expect(service).toMatchObject({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'httpd',
        namespace: 'maintpage-operator',
        labels: { app: 'httpd', 'maintpage.example.com/instance': 'example' },
        ownerReferences: [{ kind: 'MaintPage', name: 'example', controller: true }],
      },
      spec: { ports: [{ name: '8080-tcp', protocol: 'TCP', port: 8080, targetPort: 'http' }] },
    });
  });

  it.each([
    ['app', { 'maintpage.example.com/instance': 'example', 'maintpage.example.com/role': 'app' }],
    ['maintenance', { 'maintpage.example.com/instance': 'example', 'maintpage.example.com/role': 'maintenance' }],
  ] as const)('selects the %s pods by instance and role only', (target, selector) => {
    expect(desiredService(resolved(maintPageFixture()), target).spec?.selector).toEqual(selector);
  });
});
