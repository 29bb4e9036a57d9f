import { type DesiredObject, ownedMetadata, requiredName, restrictedContainerSecurityContext, restrictedPodSecurityContext } from '@k8s-operators/controller-core';
import type { V1Container, V1Deployment, V1PodSpec, V1Volume } from '@kubernetes/client-node';
import type { ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import { BIND_ADDRESS_ENV, pageServerArgs } from '../page-server/flags.ts';
import { HEALTH_PATH } from '../page-server/page-server.ts';
import { INSTANCE_LABEL, ROLE_LABEL, APP_LABEL, selectorFor } from './labels.ts';
import { maintenanceDeploymentName, pageHtmlConfigMapName } from '../api/object-names.ts';

/**
 * The maintenance page as a Deployment, so a pod lost with its node or deleted by hand is replaced.
 * Its pods run all the time, whether or not maintenance is on, so that switching never waits for a pod to start.
 *
 * With `maintpageimage` the user's image serves the page; we know nothing of its paths or status codes (a good
 * maintenance page answers 503 everywhere, which an HTTP probe would count as failure), so the probes only check that
 * the port accepts connections. Without it, the built-in page server runs, probed on its `/healthz`.
 *
 * How the page reaches the built-in server: as a file in a volume mounted at /etc/maintpage. `page.html` inline is
 * written to a ConfigMap of ours (desired-page-html.ts); `page.htmlFrom` mounts the user's ConfigMap key directly. The
 * kubelet refreshes ConfigMap volumes in place and the server re-reads the file when it changes, so editing the page
 * needs no restart. The message and Retry-After settings are flags: changing them rolls the pods, one at a time.
 *
 * Both kinds of pod pass the restricted Pod Security Standard, so they are admitted in namespaces that enforce it:
 * - Built-in page server: everything restricted asks for, plus a read-only root filesystem and the image's UID/GID
 *   65532 (it writes nothing, and runs as that user).
 * - A user's image (`maintpageimage`, e.g. the seed's httpd-based quay.io/daein/maintpage): runAsNonRoot, RuntimeDefault
 *   seccomp, no privilege escalation and no capabilities, but no user ID (the image's own USER applies) and a
 *   writable root filesystem (web servers write pid and log files). An image that runs as root fails to start with
 *   the kubelet's "image will run as root" message, and the Service stays on the app (WaitingForMaintenancePods).
 */

export interface MaintenanceDeploymentOptions {
  /** Image of the built-in page server, used when `maintpageimage` is not set. Chosen by the operator's deployment. */
  pageServerImage: string;
}

export const MAINTENANCE_CONTAINER_NAME = 'maintpage';
export const PAGE_VOLUME_NAME = 'page';
export const PAGE_MOUNT_PATH = '/etc/maintpage';
export const PAGE_FILE_NAME = 'page.html';
/** Key of the HTML in our own ConfigMap. */
export const PAGE_HTML_KEY = PAGE_FILE_NAME;
const PORT_NAME = 'http';
/** The UID and GID of the built-in page server image. */
const PAGE_SERVER_USER_ID = 65532;

function pageVolume(maintPage: ResolvedMaintPage): V1Volume | undefined {
  const { page } = maintPage.spec.maintpageconfig;
  if (page.html !== undefined) {
    return {
      name: PAGE_VOLUME_NAME,
      configMap: { name: pageHtmlConfigMapName(maintPage), items: [{ key: PAGE_HTML_KEY, path: PAGE_FILE_NAME }] },
    };
  }
  const ref = page.htmlFrom?.configMapKeyRef;
  if (ref === undefined) return undefined;
  return { name: PAGE_VOLUME_NAME, configMap: { name: ref.name, items: [{ key: ref.key, path: PAGE_FILE_NAME }] } };
}

function pageServerPod(maintPage: ResolvedMaintPage, port: number, image: string): V1PodSpec {
  const config = maintPage.spec.maintpageconfig;
  const volume = pageVolume(maintPage);
  const probe = { httpGet: { path: HEALTH_PATH, port: PORT_NAME } };
  const container: V1Container = {
    name: MAINTENANCE_CONTAINER_NAME,
    image,
    args: pageServerArgs({
      port,
      message: config.page.message,
      retryAfterSeconds: config.page.retryAfterSeconds,
      retryAfterUntil: config.schedule?.end?.asWritten,
      contentFile: volume === undefined ? undefined : `${PAGE_MOUNT_PATH}/${PAGE_FILE_NAME}`,
    }),
    // Listening on the Pod IP rather than every interface keeps pods that share a network namespace (testkit's
    // process-based node) from fighting over the port. The cost: `kubectl port-forward`, which dials localhost
    // inside the pod, does not reach it; port-forward to the Service instead.
    env: [{ name: BIND_ADDRESS_ENV, valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
    ports: [{ name: PORT_NAME, containerPort: port, protocol: 'TCP' }],
    readinessProbe: { ...probe, periodSeconds: 5 },
    livenessProbe: { ...probe, periodSeconds: 10, failureThreshold: 3 },
    // The request is the page server's usual resident memory (the README's Benchmark); the limit leaves room for
    // bursts of connections. No CPU limit: throttling would only slow the answers down.
    resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '128Mi' } },
    securityContext: restrictedContainerSecurityContext({ readOnlyRootFilesystem: true }),
    ...(volume === undefined ? {} : { volumeMounts: [{ name: PAGE_VOLUME_NAME, mountPath: PAGE_MOUNT_PATH, readOnly: true }] }),
  };
  return {
    automountServiceAccountToken: false,
    securityContext: restrictedPodSecurityContext({ runAsUserAndGroup: PAGE_SERVER_USER_ID }),
    containers: [container],
    ...(volume === undefined ? {} : { volumes: [volume] }),
  };
}

function customImagePod(port: number, image: string): V1PodSpec {
  const probe = { tcpSocket: { port: PORT_NAME } };
  return {
    automountServiceAccountToken: false,
    securityContext: restrictedPodSecurityContext(),
    containers: [
      {
        name: MAINTENANCE_CONTAINER_NAME,
        image,
        ports: [{ name: PORT_NAME, containerPort: port, protocol: 'TCP' }],
        readinessProbe: { ...probe, periodSeconds: 5 },
        livenessProbe: { ...probe, periodSeconds: 10, failureThreshold: 3 },
        // Requests only: a memory limit could kill an image whose needs we cannot know.
        resources: { requests: { cpu: '10m', memory: '32Mi' } },
        securityContext: restrictedContainerSecurityContext(),
      },
    ],
  };
}

export function desiredMaintenanceDeployment(maintPage: ResolvedMaintPage, options: MaintenanceDeploymentOptions): DesiredObject<V1Deployment> {
  const instance = requiredName(maintPage);
  const config = maintPage.spec.maintpageconfig;
  const { port } = config;
  const selector = selectorFor(instance, 'maintenance');
  const podLabels = { [APP_LABEL]: instance, ...selector };
  const customImage = config.maintpageimage;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ownedMetadata(maintPage, {
      name: maintenanceDeploymentName(maintPage),
      labels: { [INSTANCE_LABEL]: instance, [ROLE_LABEL]: 'maintenance' },
    }),
    spec: {
      replicas: config.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: podLabels },
        spec:
          customImage === undefined
            ? pageServerPod(maintPage, port, options.pageServerImage)
            : customImagePod(port, customImage),
      },
    },
  };
}
