import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type KubernetesObject, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { ControlPlane, waitFor } from '@k8s-operators/testkit';
import { KubeClient, type KubeClientOptions } from '../src/client/kube-client.ts';
import { defineResource, Resources } from '../src/client/resources.ts';

/** A real control plane (etcd + kube-apiserver + controllers) and an admin client for it; one per test file. */
export interface TestCluster {
  controlPlane: ControlPlane;
  kubeConfig: KubeConfig;
  client: KubeClient;
  stop(): Promise<void>;
}

export async function startTestCluster(options: KubeClientOptions = {}): Promise<TestCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-'));
  const controlPlane = await ControlPlane.start({ dir });
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.adminKubeconfig);
    const client = await KubeClient.fromKubeConfig(kubeConfig, options);
    return {
      controlPlane,
      kubeConfig,
      client,
      async stop() {
        await client.close();
        await controlPlane.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await controlPlane.stop();
    throw error;
  }
}

/** The admin kubeconfig, changed: another server URL, or acting as another user (impersonation). */
export function modifiedKubeConfig(base: KubeConfig, change: { server?: string; impersonateUser?: string }): KubeConfig {
  const cluster = base.getCurrentCluster();
  const user = base.getCurrentUser();
  const context = base.getContextObject(base.getCurrentContext());
  if (!cluster || !user || !context) throw new Error('the admin kubeconfig has no current context');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(
    { ...cluster, server: change.server ?? cluster.server },
    { ...user, ...(change.impersonateUser === undefined ? {} : { impersonateUser: change.impersonateUser }) },
  );
  return kubeConfig;
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(Resources.Namespace, { metadata: { name } });
}

/** The custom resource the tests use: namespaced, with a status subresource. */
export interface Widget extends KubernetesObject {
  spec?: { size?: number; color?: string };
  status?: { phase?: string; observedGeneration?: number };
}

export const WidgetResource = defineResource<Widget>({
  group: 'test.controller-core.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
});

/** Creates the Widget CRD and waits until the API server serves it. */
export async function installWidgetCrd(client: KubeClient): Promise<void> {
  const crd: V1CustomResourceDefinition = {
    metadata: { name: 'widgets.test.controller-core.dev' },
    spec: {
      group: 'test.controller-core.dev',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
                status: { type: 'object', properties: { phase: { type: 'string' }, observedGeneration: { type: 'integer' } } },
              },
            },
          },
        },
      ],
    },
  };
  await client.create(Resources.CustomResourceDefinition, crd);
  await waitFor(
    async () => {
      const served = await client.get(Resources.CustomResourceDefinition, { name: crd.metadata?.name ?? '' });
      return served?.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True');
    },
    { what: 'the Widget CRD to be established', timeoutMs: 30_000 },
  );
  // Established means the discovery docs are updated; the REST endpoint may lag by a moment.
  await waitFor(async () => (await client.list(WidgetResource, { namespace: 'default' })).items, {
    what: 'the widgets endpoint to be served',
    timeoutMs: 30_000,
  });
}
