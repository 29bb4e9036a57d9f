import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PrismClient } from '../src/prism/v3/prism-client.ts';
import { clientFor, requestsTo, startSimulator } from './simulator.ts';

let simulator: PrismSimulator;
let client: PrismClient;

beforeAll(async () => {
  // More images of one name than fit on a page of LIST_PAGE_LENGTH (100).
  const images = Array.from({ length: 103 }, (_, i) => ({ name: i < 102 ? 'many' : 'once', uuid: `7b1e0c52-9c3d-4f0a-8d6e-${(0x2a5b1c4d7e00 + i).toString(16)}`, sizeBytes: 1024 }));
  simulator = await startSimulator({ images });
  client = clientFor(simulator);
});
afterAll(async () => {
  await client.close();
  await simulator.stop();
});

it('resolves cluster, image and subnet names to UUIDs, exactly and over every page', async () => {
  const [cluster] = simulator.clusters;
  expect(await client.listEntityUuidsByName('cluster', cluster?.name ?? '')).toEqual([cluster?.uuid]);
  expect(await client.listEntityUuidsByName('subnet', 'vlan10-ipam')).toEqual([simulator.subnets.find((s) => s.name === 'vlan10-ipam')?.uuid]);
  expect(await client.listEntityUuidsByName('image', 'once')).toEqual(['7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e66']);
  expect(await client.listEntityUuidsByName('image', 'no-such-image')).toEqual([]);
  const before = requestsTo(simulator, 'POST', 'POST /images/list', 200);
  expect(new Set(await client.listEntityUuidsByName('image', 'many')).size).toBe(102);
  expect(requestsTo(simulator, 'POST', 'POST /images/list', 200) - before).toBe(2);
});

it('never resolves a cluster name to Prism Central\'s own entity, which runs no VMs', async () => {
  // Listed with the clusters (service_list PRISM_CENTRAL), as a real Prism Central lists itself.
  expect(await client.listEntityUuidsByName('cluster', simulator.prismCentral.name)).toEqual([]);
  const [cluster] = simulator.clusters;
  const sameName = await startSimulator({ prismCentral: { name: cluster?.name ?? '', uuid: '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6b00' } });
  const sameNameClient = clientFor(sameName);
  try {
    expect(await sameNameClient.listEntityUuidsByName('cluster', cluster?.name ?? '')).toEqual([cluster?.uuid]);
  } finally {
    await sameNameClient.close();
    await sameName.stop();
  }
});

it('keeps the subnets a VM on the given cluster can use', async () => {
  const [cluster] = simulator.clusters;
  const vlan10 = simulator.subnets.find((s) => s.name === 'vlan10-ipam')?.uuid;
  expect(await client.listEntityUuidsByName('subnet', 'vlan10-ipam', { clusterUuid: cluster?.uuid.toUpperCase() ?? '' })).toEqual([vlan10]);
  expect(await client.listEntityUuidsByName('subnet', 'vlan10-ipam', { clusterUuid: '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a99' })).toEqual([]);
});
