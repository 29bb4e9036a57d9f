import { type DesiredObject, ownedMetadata, requiredName } from '@k8s-operators/controller-core';
import type { V1Service } from '@kubernetes/client-node';
import { DEFAULT_PORT } from '../api/defaults.ts';
import type { ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import { INSTANCE_LABEL, APP_LABEL, selectorFor, type Target } from './labels.ts';
import { appName } from '../api/object-names.ts';

/**
 * The app's Service, named `appname`, selecting `target`'s pods (`decideSwitch` says which). Its port is the seed's:
 * 8080, named `8080-tcp`. The target port is the name `http`, which each pod set maps to its own container port, so
 * the app and the maintenance page may listen on different ports.
 */
export const SERVICE_PORT = DEFAULT_PORT;
export const SERVICE_PORT_NAME = `${SERVICE_PORT}-tcp`;

export function desiredService(maintPage: ResolvedMaintPage, target: Target): DesiredObject<V1Service> {
  const instance = requiredName(maintPage);
  const name = appName(maintPage);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: ownedMetadata(maintPage, { name, labels: { [APP_LABEL]: name, [INSTANCE_LABEL]: instance } }),
    spec: {
      ports: [{ name: SERVICE_PORT_NAME, protocol: 'TCP', port: SERVICE_PORT, targetPort: 'http' }],
      selector: selectorFor(instance, target),
    },
  };
}
