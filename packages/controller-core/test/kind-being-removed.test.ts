// kindBeingRemoved against a real API server: false while the CRD is in place, true from the moment it is deleted
// (the API server is then deleting its objects, held here by a finalizer, as an operator's would hold them), and true
// once it is gone.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@k8s-operators/testkit';
import { Resources } from '../src/client/resources.ts';
import { kindBeingRemoved } from '../src/crd/kind-being-removed.ts';
import { createNamespace, installWidgetCrd, startTestCluster, WidgetResource, type TestCluster } from './client-test-cluster.ts';

const CRD = 'widgets.test.controller-core.dev';
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
  await installWidgetCrd(cluster.client);
  await createNamespace(cluster.client, 'shop');
});
afterAll(async () => {
  await cluster.stop();
});

test('a kind is being removed from the deletion of its CRD on, and once it is gone', async () => {
  const { client } = cluster;
  expect(await kindBeingRemoved(client, CRD)).toBe(false);
  await client.create(WidgetResource, { apiVersion: 'test.controller-core.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'shop', finalizers: ['test.controller-core.dev/hold'] } });
  await client.delete(Resources.CustomResourceDefinition, { name: CRD });
  // The API server deletes the CRD's objects first; the finalizer keeps the widget, and so the CRD, in place.
  await waitFor(async () => (await client.get(WidgetResource, { namespace: 'shop', name: 'w' }))?.metadata?.deletionTimestamp, { what: 'the widget to be deleted with its CRD', timeoutMs: 30_000 });
  expect((await client.get(Resources.CustomResourceDefinition, { name: CRD }))?.metadata?.deletionTimestamp).toBeDefined();
  expect(await kindBeingRemoved(client, CRD)).toBe(true);

  await client.patch(WidgetResource, { namespace: 'shop', name: 'w' }, { type: 'merge', patch: { metadata: { finalizers: null } } });
  await waitFor(async () => (await client.get(Resources.CustomResourceDefinition, { name: CRD })) === undefined, { what: 'the CRD to be gone', timeoutMs: 30_000 });
  expect(await kindBeingRemoved(client, CRD)).toBe(true);
});
