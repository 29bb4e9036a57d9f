import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { ControlPlane, waitFor } from '@k8s-operators/testkit';
import { parse, stringify } from 'yaml';
import { KubeClient, type KubeClientOptions } from '../src/client/kube-client.ts';
import { defineResource, Resources, type ResourceRef } from '../src/client/resources.ts';

/** A real control plane (etcd + kube-apiserver + controllers) and an admin client for it; one per test file. */
export interface TestCluster {
  controlPlane: ControlPlane;
  /** The admin kubeconfig's path; clients load it with {@link KubeClient.load}, as an operator does. */
  kubeconfig: string;
  client: KubeClient;
  /** A kubeconfig file like the admin's, changed as asked (see {@link KubeconfigChange}). */
  kubeconfigWith(change: KubeconfigChange): Promise<string>;
  stop(): Promise<void>;
}

export interface KubeconfigChange {
  /** Another server URL, e.g. a proxy in front of the API server. */
  server?: string;
  /** Authenticate with this bearer token instead of the admin's client certificate. */
  token?: string;
  /** Act as this user (the kubeconfig's `as`, sent as Impersonate-User). */
  impersonate?: string;
}

export async function startTestCluster(options: KubeClientOptions = {}): Promise<TestCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-'));
  const controlPlane = await ControlPlane.start({ dir });
  try {
    const kubeconfig = controlPlane.adminKubeconfig;
    const client = await KubeClient.load({ ...options, kubeconfig });
    let derived = 0;
    return {
      controlPlane,
      kubeconfig,
      client,
      async kubeconfigWith(change) {
        derived++;
        return writeChangedKubeconfig(kubeconfig, join(dir, `derived-${derived}.kubeconfig`), change);
      },
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

interface KubeconfigDocument {
  clusters: { cluster: Record<string, unknown> }[];
  users: { user: Record<string, unknown> }[];
}

async function writeChangedKubeconfig(base: string, path: string, change: KubeconfigChange): Promise<string> {
  const config = parse(await readFile(base, 'utf8')) as KubeconfigDocument;
  for (const entry of config.clusters) {
    if (change.server !== undefined) entry.cluster.server = change.server;
  }
  for (const entry of config.users) {
    if (change.token !== undefined) entry.user = { token: change.token };
    if (change.impersonate !== undefined) entry.user.as = change.impersonate;
  }
  await writeFile(path, stringify(config), { mode: 0o600 });
  return path;
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
  await waitForCrdServed(client, crd.metadata?.name ?? '', WidgetResource, 'default');
}

/**
 * Waits until the API server serves the CRD `name`: Established, then its REST endpoint (`served`) answering a list
 * in `namespace`, since Established updates discovery and the endpoint may take a moment longer.
 */
export async function waitForCrdServed(client: KubeClient, name: string, served: ResourceRef, namespace: string): Promise<void> {
  await waitFor(
    async () => {
      const crd = await client.get(Resources.CustomResourceDefinition, { name });
      return crd?.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True');
    },
    { what: `the CRD ${name} to be established`, timeoutMs: 30_000 },
  );
  await waitFor(async () => (await client.list(served, { namespace, pageSize: 1 })).items, { what: `the ${served.resource} endpoint to be served`, timeoutMs: 30_000 });
}
