import { describe, expect, it } from 'vitest';
import { builtInPageFixture, maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { desiredMaintenanceDeployment } from './desired-maintenance-deployment.ts';

const options = { pageServerImage: 'ghcr.io/k8s-operators/maintpage-page-server:0.1.0' };
const maintenanceSelector = { 'maintpage.example.com/instance': 'example', 'maintpage.example.com/role': 'maintenance' };

describe('desiredMaintenanceDeployment with the seed\'s maintpageimage', () => {
  const deployment = desiredMaintenanceDeployment(resolved(maintPageFixture()), options);
  const pod = deployment.spec?.template.spec;
  const container = pod?.containers[0];

  it('is a Deployment of one pod, named after the MaintPage, owned by it', () => {
    expect(deployment.metadata).toMatchObject({
      name: 'example-maintpage',
      namespace: 'maintpage-operator',
      labels: maintenanceSelector,
      ownerReferences: [{ kind: 'MaintPage', name: 'example', controller: true, blockOwnerDeletion: true }],
    });
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.selector.matchLabels).toEqual(maintenanceSelector);
  });

  it("labels the pods app=<cr-name> as the seed did, besides the selector's labels", () => {
    expect(deployment.spec?.template.metadata?.labels).toEqual({ app: 'example', ...maintenanceSelector });
  });

  it("runs the user's image on the named port, probed by TCP (its paths and status codes are unknown)", () => {
    expect(container).toMatchObject({
      name: 'maintpage',
      image: 'quay.io/daein/maintpage:latest',
      ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      readinessProbe: { tcpSocket: { port: 'http' } },
      livenessProbe: { tcpSocket: { port: 'http' } },
      resources: { requests: { cpu: '10m', memory: '32Mi' } },
    });
    expect(container?.args).toBeUndefined();
    expect(container?.resources?.limits).toBeUndefined();
  });

  it('meets the restricted Pod Security Standard, leaving user and root filesystem to the image', () => {
    expect(pod?.automountServiceAccountToken).toBe(false);
    expect(pod?.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container?.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  });

  it('takes port and replicas from the spec', () => {
    const custom = desiredMaintenanceDeployment(resolved(maintPageFixture({ maintpageconfig: { port: 8081, replicas: 2 } })), options);
    expect(custom.spec?.replicas).toBe(2);
    expect(custom.spec?.template.spec?.containers[0]?.ports).toEqual([{ name: 'http', containerPort: 8081, protocol: 'TCP' }]);
  });
});

describe('desiredMaintenanceDeployment with the built-in page server', () => {
  it('runs the page server image with its defaults, bound to the Pod IP, probed on /healthz', () => {
    const pod = desiredMaintenanceDeployment(resolved(builtInPageFixture()), options).spec?.template.spec;
    expect(pod?.containers).toEqual([
      {
        name: 'maintpage',
        image: options.pageServerImage,
        args: [
          '--port=8080',
          '--message=This service is down for maintenance. Please try again later.',
          '--retry-after-seconds=300',
        ],
        env: [{ name: 'BIND_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
        livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10, failureThreshold: 3 },
        resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '128Mi' } },
        securityContext: {
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          readOnlyRootFilesystem: true,
        },
      },
    ]);
    expect(pod?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod?.volumes).toBeUndefined();
  });

  it('passes message, Retry-After and the schedule end as flags', () => {
    const maintPage = resolved(builtInPageFixture({
      maintpageconfig: {
        port: 9000,
        schedule: { start: '2026-03-01T22:00:00Z', end: '2026-03-02T02:00:00Z' },
        page: { message: 'Back at 02:00 UTC.', retryAfterSeconds: 120 },
      },
    }));
    expect(desiredMaintenanceDeployment(maintPage, options).spec?.template.spec?.containers[0]?.args).toEqual([
      '--port=9000',
      '--message=Back at 02:00 UTC.',
      '--retry-after-seconds=120',
      '--retry-after-until=2026-03-02T02:00:00Z',
    ]);
  });

  it('mounts an inline page from the ConfigMap made for it, read-only', () => {
    const maintPage = resolved(builtInPageFixture({ maintpageconfig: { page: { html: '<h1>Back soon</h1>' } } }));
    const pod = desiredMaintenanceDeployment(maintPage, options).spec?.template.spec;
    expect(pod?.volumes).toEqual([
      { name: 'page', configMap: { name: 'example-maintpage-html', items: [{ key: 'page.html', path: 'page.html' }] } },
    ]);
    expect(pod?.containers[0]?.volumeMounts).toEqual([{ name: 'page', mountPath: '/etc/maintpage', readOnly: true }]);
    expect(pod?.containers[0]?.args).toContain('--content-file=/etc/maintpage/page.html');
  });

  it("mounts the key of the user's ConfigMap named by htmlFrom as page.html", () => {
    const maintPage = resolved(builtInPageFixture({
      maintpageconfig: { page: { htmlFrom: { configMapKeyRef: { name: 'pages', key: 'shop.html' } } } },
    }));
    const pod = desiredMaintenanceDeployment(maintPage, options).spec?.template.spec;
    expect(pod?.volumes).toEqual([
      { name: 'page', configMap: { name: 'pages', items: [{ key: 'shop.html', path: 'page.html' }] } },
    ]);
    expect(pod?.containers[0]?.args).toContain('--content-file=/etc/maintpage/page.html');
  });
});
