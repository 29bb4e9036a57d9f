// What the image lookup and the per-disk storage container read from Prism, on each API against the simulator:
// storage containers by name on the VM's cluster (v3 through POST /groups as CAPX v1.7.0 ListStorageContainers,
// v4 through clustermgmt as CAPX v1.10.3 GetStorageContainerInCluster), and every image with its creation time (v3
// POST /images/list `metadata.creation_time`, v4 vmm content `createTime`), from which the newest match wins.

import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismV3VmApi } from '../src/prism/v3/v3-vm-api.ts';
import { PrismV4VmApi } from '../src/prism/v4/v4-vm-api.ts';
import { imagesMatchingNewestFirst } from '../src/vm/image-lookup.ts';
import type { PrismVmApi } from '../src/vm/prism-vm-api.ts';
import { clientFor, requestsByApi, startSimulator, v4ClientFor } from './simulator.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const PE2 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a02';
const DEFAULT1 = '5c0e7a10-0000-4000-8000-000000000001';
const FAST1 = '5c0e7a10-0000-4000-8000-000000000002';
const DEFAULT2 = '5c0e7a10-0000-4000-8000-000000000003';
const image = (n: number, name: string, creationTime: string) => ({ name, uuid: `7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e0${n}`, sizeBytes: 1024, creationTime });

let simulator: PrismSimulator;
const apis: { version: 'v3' | 'v4'; api: PrismVmApi; close: () => Promise<void> }[] = [];

beforeAll(async () => {
  simulator = await startSimulator({
    clusters: [
      { name: 'pe-one', uuid: PE1, storageContainers: [{ name: 'default', uuid: DEFAULT1 }, { name: 'fast', uuid: FAST1 }] },
      { name: 'pe-two', uuid: PE2, storageContainers: [{ name: 'default', uuid: DEFAULT2 }] },
    ],
    images: [
      image(1, 'ubuntu-22.04-20260101', '2026-01-01T00:00:00Z'),
      image(2, 'ubuntu-22.04-20260301', '2026-03-01T00:00:00Z'),
      image(3, 'ubuntu-22.04-20260201', '2026-02-01T00:00:00Z'),
      image(4, 'rocky-9-20260401', '2026-04-01T00:00:00Z'),
    ],
  });
  const v3 = clientFor(simulator);
  const v4 = v4ClientFor(simulator);
  apis.push({ version: 'v3', api: new PrismV3VmApi(v3), close: () => v3.close() }, { version: 'v4', api: new PrismV4VmApi(v4), close: () => v4.close() });
});
afterAll(async () => {
  await Promise.all(apis.map(({ close }) => close()));
  await simulator.stop();
});

describe.each(['v3', 'v4'] as const)('on %s', (version) => {
  const api = (): PrismVmApi => {
    const found = apis.find((a) => a.version === version);
    if (found === undefined) throw new Error('beforeAll starts the APIs');
    return found.api;
  };

  it('finds a storage container by name on the VM\'s cluster; the same name on every cluster is several without one', async () => {
    expect(await api().listEntityUuidsByName('storage_container', 'fast', { clusterUuid: PE1 })).toEqual([FAST1]);
    expect(await api().listEntityUuidsByName('storage_container', 'default', { clusterUuid: PE2.toUpperCase() })).toEqual([DEFAULT2]);
    expect(await api().listEntityUuidsByName('storage_container', 'fast', { clusterUuid: PE2 })).toEqual([]);
    expect(new Set(await api().listEntityUuidsByName('storage_container', 'default'))).toEqual(new Set([DEFAULT1, DEFAULT2]));
    expect(await api().listEntityUuidsByName('storage_container', 'Fast', { clusterUuid: PE1 })).toEqual([]);
  });

  it('lists every image with its creation time, so that the newest match wins', async () => {
    const images = await api().listImages();
    expect(images).toHaveLength(4);
    const newest = images.find((candidate) => candidate.uuid === '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02');
    expect(newest?.name).toBe('ubuntu-22.04-20260301');
    expect(Date.parse(newest?.createTime ?? '')).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect(imagesMatchingNewestFirst(images, '^ubuntu-22[.]04-')).toEqual(['7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02', '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e03', '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e01']);
  });
});

it('asks each API its own way: v3 the groups API and the image list, v4 clustermgmt and vmm content', () => {
  const { v3, v4 } = requestsByApi(simulator);
  expect(v3).toEqual(expect.arrayContaining(['POST /groups', 'POST /images/list']));
  expect(v4).toEqual(expect.arrayContaining(['GET /api/clustermgmt/v4.2/config/storage-containers', 'GET /api/vmm/v4.2/content/images']));
});
