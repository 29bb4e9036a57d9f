// The v4 name lookups (clustermgmt clusters, networking subnets, vmm content images) against a simulator that serves
// v4 only: exact names over every page, Prism Central's own cluster entity never a match, subnets a VM on a given
// cluster can use, and not one v3 request.

import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismV4Client } from '../src/prism/v4/prism-v4-client.ts';
import { requestsByApi, requestsTo, startSimulator, v4ClientFor } from './simulator.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const PE2 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a02';
const PC = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6aff';
const VPC = 'd1e2f3a4-0000-4000-8000-00000000c0de';
const subnetUuid = (n: number): string => `c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f0${n}`;

let simulator: PrismSimulator;
let client: PrismV4Client;

beforeAll(async () => {
  // More images of one name than fit on a page of V4_LIST_LIMIT (100).
  const images = Array.from({ length: 103 }, (_, i) => ({ name: i < 102 ? 'many' : 'once', uuid: `7b1e0c52-9c3d-4f0a-8d6e-${(0x2a5b1c4d7e00 + i).toString(16)}`, sizeBytes: 1024 }));
  simulator = await startSimulator({
    apis: 'v4',
    // Prism Central shares a Prism Element's name, as a PC named after the site and a PE named the same would.
    clusters: [{ name: 'site-a', uuid: PE1 }, { name: 'pe-two', uuid: PE2 }],
    prismCentral: { name: 'site-a', uuid: PC },
    subnets: [
      { name: 'vlan10', uuid: subnetUuid(1), cidr: '10.1.0.0/24', ipam: true, clusterUuid: PE1 },
      { name: 'vlan10', uuid: subnetUuid(2), cidr: '10.2.0.0/24', ipam: true, clusterUuid: PE2 },
      { name: 'only-on-two', uuid: subnetUuid(3), cidr: '10.3.0.0/24', ipam: false, clusterUuid: PE2 },
      { name: 'overlay', uuid: subnetUuid(4), cidr: '172.16.0.0/16', ipam: true, type: 'OVERLAY', vpcUuid: VPC },
    ],
    images,
  });
  client = v4ClientFor(simulator);
});
afterAll(async () => {
  await client.close();
  await simulator.stop();
});

describe('listEntityExtIdsByName on v4', () => {
  it('finds a cluster by its exact name, never the Prism Central entity that shares it', async () => {
    expect(await client.listEntityExtIdsByName('cluster', 'site-a')).toEqual([PE1]);
    expect(await client.listEntityExtIdsByName('cluster', 'pe-two')).toEqual([PE2]);
    expect(await client.listEntityExtIdsByName('cluster', 'Site-A')).toEqual([]);
    expect(await client.listEntityExtIdsByName('cluster', 'nowhere')).toEqual([]);
  });

  it('reads every page of images and keeps every match, so an ambiguous name shows as several', async () => {
    expect(await client.listEntityExtIdsByName('image', 'once')).toEqual(['7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e66']);
    expect(await client.listEntityExtIdsByName('image', 'no-such-image')).toEqual([]);
    const before = requestsTo(simulator, 'GET', 'GET /api/vmm/v4.2/content/images' as never, 200);
    expect(new Set(await client.listEntityExtIdsByName('image', 'many')).size).toBe(102);
    expect(requestsTo(simulator, 'GET', 'GET /api/vmm/v4.2/content/images' as never, 200) - before).toBe(2);
  });

  it('keeps the subnets a VM on the given cluster can use: its VLAN subnets and overlay subnets', async () => {
    expect(await client.listEntityExtIdsByName('subnet', 'vlan10')).toEqual([subnetUuid(1), subnetUuid(2)]);
    expect(await client.listEntityExtIdsByName('subnet', 'vlan10', { clusterUuid: PE2 })).toEqual([subnetUuid(2)]);
    expect(await client.listEntityExtIdsByName('subnet', 'only-on-two', { clusterUuid: PE1 })).toEqual([]);
    expect(await client.listEntityExtIdsByName('subnet', 'overlay', { clusterUuid: PE1 })).toEqual([subnetUuid(4)]);
  });

  it('asks only v4 namespaces', () => {
    const { v3, v4, unknown } = requestsByApi(simulator);
    expect({ v3, unknown }).toEqual({ v3: [], unknown: 0 });
    expect(v4).toEqual(expect.arrayContaining(['GET /api/clustermgmt/v4.2/config/clusters', 'GET /api/networking/v4.2/config/subnets', 'GET /api/vmm/v4.2/content/images']));
  });
});
