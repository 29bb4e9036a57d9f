import { type DesiredObject, ownedMetadata, requiredName } from '@k8s-operators/controller-core';
import type { V1Deployment } from '@kubernetes/client-node';
import type { ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import { APPLIED_APP_IMAGE_ANNOTATION, appImageToApply } from './app-image.ts';
import { INSTANCE_LABEL, ROLE_LABEL, APP_LABEL, selectorFor } from './labels.ts';
import { appName } from '../api/object-names.ts';

/**
 * The app's Deployment, named `appname` with one container named `appname`, as in the seed. The container declares
 * its port as `http` (the Service's target port), and a TCP readiness probe on it, so "Ready" means "accepts
 * connections" and the Service is never switched to pods that cannot answer. No liveness probe and no security
 * context: restarting or restricting the user's app is not ours to decide.
 *
 * `observed` is the Deployment as it is now, if it exists, to keep a manual image change when `imageChangePolicy`
 * is `Allow` (app-image.ts).
 */
export function desiredAppDeployment(maintPage: ResolvedMaintPage, observed?: V1Deployment): DesiredObject<V1Deployment> {
  const instance = requiredName(maintPage);
  const name = appName(maintPage);
  const config = maintPage.spec.appconfig;
  const selector = selectorFor(instance, 'app');
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ownedMetadata(maintPage, {
      name,
      labels: { [APP_LABEL]: name, [INSTANCE_LABEL]: instance, [ROLE_LABEL]: 'app' },
      annotations: { [APPLIED_APP_IMAGE_ANNOTATION]: config.appimage },
    }),
    spec: {
      replicas: config.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { [APP_LABEL]: name, ...selector } },
        spec: {
          containers: [
            {
              name,
              image: appImageToApply(maintPage, observed),
              ports: [{ name: 'http', containerPort: config.port, protocol: 'TCP' }],
              readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 5 },
            },
          ],
        },
      },
    },
  };
}
