// Which Prism Central API the operator speaks, read from the simulator's request log: with PRISM_API_VERSION=v4 a VM's
// create, update and delete — the cluster, image and subnet named in its spec, its category, its tasks — go to v4
// namespaces only (against a Prism Central serving v4 alone, which answers 404 to any v3 path, and against one serving
// both), and with v3 to v3 only. Also what a user sees when a name does not resolve on v4, and a VM whose boot image an
// image_lookup picks (the newest match, as CAPX v1.10.3 GetImageByLookup) with a data disk on a storage container
// named in its spec (CAPX's dataDisks storageConfig.storageContainer), made through each API's own calls.

import type { PrismSimulator, PrismSimulatorOptions } from '@k8s-operators/prism-simulator';
import { waitFor } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import type { AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import { observedVmFromV3 } from '../src/prism/v3/v3-translation.ts';
import { observedVmFromV4 } from '../src/prism/v4/v4-translation.ts';
import type { PrismApiVersion } from '../src/vm/prism-vm-api.ts';
import type { ObservedVm } from '../src/vm/vm-model.ts';
import { useOperatorPerSimulator } from './operator-per-simulator.ts';
import { clientFor, requestsByApi, v4ClientFor } from './simulator.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const PE2 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a02';
const UBUNTU = '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e01';
const VLAN10 = 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f01';
const NEWEST_UBUNTU_2204 = '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e05';
const DEFAULT_ON_PE1 = '5c0e7a10-0000-4000-8000-000000000001';
const FAST_ON_PE1 = '5c0e7a10-0000-4000-8000-000000000002';

/**
 * Two Prism Element clusters, each with a storage container `default` and the first with `fast` as well; one image name
 * used twice, two builds of an image for the lookup (the newer uploaded last), a subnet on the second cluster only.
 */
const INVENTORY: PrismSimulatorOptions = {
  clusters: [
    { name: 'pe-one', uuid: PE1, storageContainers: [{ name: 'default', uuid: DEFAULT_ON_PE1 }, { name: 'fast', uuid: FAST_ON_PE1 }] },
    { name: 'pe-two', uuid: PE2, storageContainers: [{ name: 'default', uuid: '5c0e7a10-0000-4000-8000-000000000003' }] },
  ],
  prismCentral: { name: 'the-pc', uuid: '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6aff' },
  images: [
    { name: 'ubuntu', uuid: UBUNTU, sizeBytes: 1024 },
    { name: 'twice', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02', sizeBytes: 1024 },
    { name: 'twice', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e03', sizeBytes: 1024 },
    { name: 'ubuntu-22.04-20260301', uuid: NEWEST_UBUNTU_2204, sizeBytes: 1024, creationTime: '2026-03-01T00:00:00Z' },
    { name: 'ubuntu-22.04-20260101', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e04', sizeBytes: 1024, creationTime: '2026-01-01T00:00:00Z' },
  ],
  subnets: [
    { name: 'vlan10', uuid: VLAN10, cidr: '10.1.0.0/24', ipam: true, clusterUuid: PE1 },
    { name: 'vlan10', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f02', cidr: '10.2.0.0/24', ipam: true, clusterUuid: PE2 },
    { name: 'only-on-two', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f03', cidr: '10.3.0.0/24', ipam: false, clusterUuid: PE2 },
  ],
};

/** Everything by name: the cluster, the boot image, the subnet (vlan10 exists on both clusters), a category. */
const SPEC: AhvVmSpec = {
  cluster: { name: 'pe-one' },
  memory_size_mib: 1024,
  disks: [{ image: { name: 'ubuntu' } }],
  nics: [{ subnet: { name: 'vlan10' } }],
  categories: { Environment: 'Dev' },
};

const fixture = useOperatorPerSimulator();

/** A simulator serving `apis`, with an operator on `version` watching `namespace`. */
function setUp(namespace: string, apis: 'both' | 'v4', version: PrismApiVersion): Promise<PrismSimulator> {
  return fixture.setUp(namespace, { ...INVENTORY, apis }, version);
}

/** The VM as Prism shows it, read through the API under test (so the read adds nothing of the other API). */
async function vmIn(simulator: PrismSimulator, version: PrismApiVersion, uuid: string): Promise<ObservedVm | undefined> {
  if (version === 'v3') {
    const v3 = clientFor(simulator);
    const vm = await v3.getVm(uuid).finally(() => v3.close());
    return vm === undefined ? undefined : observedVmFromV3(vm);
  }
  const v4 = v4ClientFor(simulator);
  const read = await v4.getVm(uuid).finally(() => v4.close());
  return read === undefined ? undefined : observedVmFromV4(read.vm, new Map());
}

/** Creates an AhvVm naming everything by name, changes its memory, deletes it; checks each step as a user would. */
async function createUpdateDelete(simulator: PrismSimulator, namespace: string, version: PrismApiVersion): Promise<void> {
  const name = 'by-name';
  await fixture.env.apply(namespace, name, SPEC);
  const created = await fixture.env.waitForCondition(namespace, name, 'Ready', 'True', 'Available');
  const uuid = created.status?.uuid ?? '';
  const [vm, ...more] = simulator.inspect().vms.filter((v) => v.name === name);
  expect(more).toEqual([]);
  expect(vm).toMatchObject({ uuid, clusterUuid: PE1, memorySizeMib: 1024, categories: { Environment: 'Dev' } });
  expect(simulator.inspect().createRequests).toBe(1);
  const seen = await vmIn(simulator, version, uuid);
  expect(seen?.disks.find((d) => d.imageUuid !== undefined)?.imageUuid).toBe(UBUNTU);
  expect(seen?.nics.map((n) => n.subnetUuid)).toEqual([VLAN10]);

  await fixture.env.apply(namespace, name, { ...SPEC, memory_size_mib: 2048 });
  await fixture.env.waitForCondition(namespace, name, 'Ready', 'True', 'Available');
  expect(simulator.inspect().vms.find((v) => v.uuid === uuid)?.memorySizeMib).toBe(2048);

  await fixture.env.kube.delete(AhvVmRef, { namespace, name });
  await waitFor(async () => (await fixture.env.get(namespace, name)) === undefined, { what: `${namespace}/${name} to be gone`, intervalMs: 50 });
  expect(simulator.inspect().vms.filter((v) => v.name === name)).toEqual([]);
  expect(simulator.inspect().createRequests).toBe(1);
}

/** The boot disk from the newest image named `ubuntu-22.04-…`, a data disk on the storage container `fast` of pe-one. */
const LOOKUP_SPEC: AhvVmSpec = {
  cluster: { name: 'pe-one' },
  disks: [{ image_lookup: { format: '^{{.BaseOS}}-', base_os: 'ubuntu-22.04' } }, { size_mib: 1024, storage_container: { name: 'fast' } }],
};

/** Creates an AhvVm with LOOKUP_SPEC and checks, through the API under test, which image and containers its disks got. */
async function createWithImageLookupAndContainer(simulator: PrismSimulator, namespace: string, version: PrismApiVersion): Promise<void> {
  const name = 'looked-up';
  await fixture.env.apply(namespace, name, LOOKUP_SPEC);
  const created = await fixture.env.waitForCondition(namespace, name, 'Ready', 'True', 'Available');
  const seen = await vmIn(simulator, version, created.status?.uuid ?? '');
  expect(seen?.disks.map((disk) => ({ image: disk.imageUuid, container: disk.storageContainerUuid }))).toEqual([
    { image: NEWEST_UBUNTU_2204, container: DEFAULT_ON_PE1 },
    { image: undefined, container: FAST_ON_PE1 },
  ]);
}

/** The simulator saw requests of `version` alone (at least to `including`), none of the other API, none it does not serve. */
function expectOnly(simulator: PrismSimulator, version: PrismApiVersion, including: string[] = []): void {
  const { v3, v4, unknown } = requestsByApi(simulator);
  const [used, other] = version === 'v4' ? [v4, v3] : [v3, v4];
  expect({ other, unknown }, `requests besides ${version}`).toEqual({ other: [], unknown: 0 });
  expect(used).toEqual(expect.arrayContaining(including));
}

describe('PRISM_API_VERSION=v4', () => {
  /** One v4-only simulator and its operator, shared by the tests below (whichever runs first starts them). */
  let v4OnlySimulator: Promise<PrismSimulator> | undefined;
  const v4Only = (): Promise<PrismSimulator> => (v4OnlySimulator ??= setUp('v4-only', 'v4', 'v4'));

  it('creates, updates and deletes a VM on a Prism Central that serves only v4, with no v3 request at all', async () => {
    const simulator = await v4Only();
    await createUpdateDelete(simulator, 'v4-only', 'v4');
    expectOnly(simulator, 'v4', [
      'GET /api/clustermgmt/v4.2/config/clusters',
      'GET /api/vmm/v4.2/content/images',
      'GET /api/networking/v4.2/config/subnets',
      'GET /api/prism/v4.2/config/categories',
      'POST /api/vmm/v4.2/ahv/config/vms',
      'PUT /api/vmm/v4.2/ahv/config/vms/{extId}',
      'DELETE /api/vmm/v4.2/ahv/config/vms/{extId}',
      'GET /api/prism/v4.2/config/tasks/{extId}',
    ]);
  });

  it('makes a VM from the newest image an image_lookup matches, with a disk on a named storage container, with no v3 request', async () => {
    const simulator = await v4Only();
    await createWithImageLookupAndContainer(simulator, 'v4-only', 'v4');
    expectOnly(simulator, 'v4', ['GET /api/clustermgmt/v4.2/config/storage-containers', 'GET /api/vmm/v4.2/content/images']);
  });

  it('makes no v3 request on a Prism Central that serves both', async () => {
    const simulator = await setUp('v4-both', 'both', 'v4');
    await createUpdateDelete(simulator, 'v4-both', 'v4');
    expectOnly(simulator, 'v4');
  });

  it('says on the AhvVm which name does not resolve on v4, and why', async () => {
    const simulator = await v4Only();
    const namespace = 'v4-only';
    const cases: [string, AhvVmSpec, string, string][] = [
      ['pc-as-cluster', { cluster: { name: 'the-pc' } }, 'ClusterNotFound', 'cluster: Prism Central has no Prism Element cluster named "the-pc"'],
      ['image-twice', { ...SPEC, disks: [{ image: { name: 'twice' } }] }, 'AmbiguousName', 'disks[0].image: 2 images are named "twice"'],
      ['subnet-elsewhere', { ...SPEC, nics: [{ subnet: { name: 'only-on-two' } }] }, 'SubnetNotFound', `nics[0].subnet: Prism Central has no subnet named "only-on-two" that a VM on cluster ${PE1} can use`],
      ['lookup-none', { ...SPEC, disks: [{ image_lookup: { format: '^debian-' } }] }, 'ImageNotFound', 'disks[0].image_lookup: Prism Central has no image whose name matches "^debian-"; upload one, or correct format or base_os'],
      ['container-elsewhere', { ...SPEC, cluster: { name: 'pe-two' }, nics: [], disks: [{ size_mib: 1, storage_container: { name: 'fast' } }] }, 'StorageContainerNotFound', `disks[0].storage_container: Prism Central has no storage container named "fast" on cluster ${PE2}`],
    ];
    for (const [name, spec] of cases) await fixture.env.apply(namespace, name, spec);
    for (const [name, , reason, message] of cases) {
      const avm = await fixture.env.waitForCondition(namespace, name, 'Ready', 'False', reason);
      expect(avm.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(message);
    }
    expect(simulator.inspect().vms.filter((v) => cases.some(([name]) => name === v.name))).toEqual([]);
    expectOnly(simulator, 'v4');
  });
});

describe('PRISM_API_VERSION=v3', () => {
  it('creates, updates and deletes a VM with no v4 request on a Prism Central that serves both', async () => {
    const simulator = await setUp('v3-both', 'both', 'v3');
    await createUpdateDelete(simulator, 'v3-both', 'v3');
    expectOnly(simulator, 'v3', ['POST /clusters/list', 'POST /images/list', 'POST /subnets/list', 'POST /vms', 'PUT /vms/{uuid}', 'DELETE /vms/{uuid}']);
  });

  it('makes a VM from the newest image an image_lookup matches, with a disk on a named storage container, with no v4 request', async () => {
    const simulator = await setUp('v3-lookup', 'both', 'v3');
    await createWithImageLookupAndContainer(simulator, 'v3-lookup', 'v3');
    expectOnly(simulator, 'v3', ['POST /groups', 'POST /images/list']);
  });
});
