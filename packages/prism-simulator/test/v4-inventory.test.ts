// The v4 views of the inventory (clustermgmt clusters and storage containers, networking subnets, vmm content images):
// the same clusters, subnets and images the v3 API lists, in the v4.2 models, with $filter, $page, $limit and $orderby
// as CAPX's v4 path uses them, 404s for unknown extIds and for a simulator that serves only v3, and a 400 that says what
// is supported for what is not.

import { describe, expect, it } from 'vitest';
import {
  CLUSTERMGMT_CLUSTERS_PATH,
  CLUSTERMGMT_STORAGE_CONTAINERS_PATH,
  NETWORKING_SUBNETS_PATH,
  VMM_IMAGES_PATH,
  type PrismSimulatorOptions,
} from '../src/index.ts';
import { PrismTestClient } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage, type V4ListJson } from './v4-client.ts';

const PE1 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01';
const PE2 = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a02';
const PC = '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6aff';
const VPC = 'd1e2f3a4-0000-4000-8000-00000000c0de';

const SEEDS: PrismSimulatorOptions = {
  clusters: [{ name: 'pe-one', uuid: PE1 }, { name: 'pe-two', uuid: PE2 }],
  prismCentral: { name: 'the-pc', uuid: PC },
  subnets: [
    { name: 'vlan-a', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f01', cidr: '10.1.0.0/24', ipam: true, clusterUuid: PE1 },
    { name: 'vlan-b', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f02', cidr: '10.2.0.0/24', ipam: false, clusterUuid: PE2 },
    { name: 'overlay-c', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f03', cidr: '172.16.0.0/16', ipam: true, type: 'OVERLAY', vpcUuid: VPC },
  ],
  images: [
    { name: 'capx-ubuntu-2204-v1.31.0-old', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e01', sizeBytes: 2048, creationTime: '2024-01-01T00:00:00Z' },
    { name: 'capx-ubuntu-2204-v1.31.0-new', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02', sizeBytes: 1024, creationTime: '2024-06-01T02:00:00+02:00' },
    { name: 'rocky', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e03', sizeBytes: 4096, creationTime: '2024-03-01T00:00:00Z' },
  ],
};

interface Entity {
  $objectType: string;
  $reserved: Record<string, unknown>;
  extId: string;
  name: string;
  [key: string]: unknown;
}

const filter = (expression: string): string => `?$filter=${encodeURIComponent(expression)}&$page=0`;

describe('the v4 inventory', () => {
  const prism = useFastSimulator(SEEDS, (simulator) => new V4TestClient(simulator));

  async function list(path: string, query = ''): Promise<V4ListJson<Entity> & { $objectType: string; $dataItemDiscriminator?: string }> {
    const reply = await prism.client.request('GET', `${path}${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.json as V4ListJson<Entity> & { $objectType: string };
  }

  async function get(path: string, extId: string): Promise<{ $objectType: string; $reserved: Record<string, unknown>; $dataItemDiscriminator: string; data: Entity }> {
    const reply = await prism.client.request('GET', `${path}/${extId}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.json as { $objectType: string; $reserved: Record<string, unknown>; $dataItemDiscriminator: string; data: Entity };
  }

  const names = (answer: V4ListJson<Entity>): string[] | undefined => answer.data?.map((item) => item.name);

  describe('clustermgmt clusters', () => {
    it('lists the Prism Element clusters with clusterFunction AOS, then the Prism Central marked PRISM_CENTRAL', async () => {
      const answer = await list(CLUSTERMGMT_CLUSTERS_PATH, '?$page=0');
      expect(answer).toMatchObject({ $objectType: 'clustermgmt.v4.config.ListClustersApiResponse', $dataItemDiscriminator: 'List<clustermgmt.v4.config.Cluster>', metadata: { totalAvailableResults: 3 } });
      expect(answer.data?.map((c) => [c.name, (c.config as { clusterFunction: string[] }).clusterFunction])).toEqual([
        ['pe-one', ['AOS']],
        ['pe-two', ['AOS']],
        ['the-pc', ['PRISM_CENTRAL']],
      ]);
      expect(answer.data?.[0]).toEqual({
        $objectType: 'clustermgmt.v4.config.Cluster',
        $reserved: { $fv: 'v4.r2' },
        extId: PE1,
        name: 'pe-one',
        config: {
          $objectType: 'clustermgmt.v4.config.ClusterConfigReference',
          $reserved: { $fv: 'v4.r2' },
          clusterFunction: ['AOS'],
          buildInfo: { $objectType: 'clustermgmt.v4.config.BuildReference', $reserved: { $fv: 'v4.r2' }, buildType: 'release', version: '6.5.4.5' },
          clusterArch: 'X86_64',
          hypervisorTypes: ['AHV'],
          isAvailable: true,
          isLts: true,
          operationMode: 'NORMAL',
          redundancyFactor: 2,
          timezone: 'UTC',
        },
        nodes: { $objectType: 'clustermgmt.v4.config.NodeReference', $reserved: { $fv: 'v4.r2' }, numberOfNodes: 1 },
      });
    });

    it('are the clusters v3 lists, under the same names and UUIDs', async () => {
      const v3 = await new PrismTestClient(prism.simulator).request('POST', '/clusters/list', { kind: 'cluster' });
      const v3Clusters = (v3.json as { entities: { metadata: { uuid: string }; spec: { name: string } }[] }).entities.map((e) => [e.spec.name, e.metadata.uuid]);
      const v4Clusters = (await list(CLUSTERMGMT_CLUSTERS_PATH)).data?.map((c) => [c.name, c.extId]);
      expect(v4Clusters).toEqual(v3Clusters);
    });

    it('filters on name and extId, and gets one by extId (the Prism Central too) or answers 404', async () => {
      expect(names(await list(CLUSTERMGMT_CLUSTERS_PATH, filter("name eq 'pe-two'")))).toEqual(['pe-two']);
      expect(names(await list(CLUSTERMGMT_CLUSTERS_PATH, filter(`extId eq '${PC}'`)))).toEqual(['the-pc']);
      const none = await list(CLUSTERMGMT_CLUSTERS_PATH, filter("name eq 'PE-TWO'"));
      expect(none.data).toBeUndefined();
      expect(none.metadata.totalAvailableResults).toBe(0);

      const one = await get(CLUSTERMGMT_CLUSTERS_PATH, PE1);
      expect(one).toMatchObject({ $objectType: 'clustermgmt.v4.config.GetClusterApiResponse', $reserved: { $fv: 'v4.r2' }, $dataItemDiscriminator: 'clustermgmt.v4.config.Cluster', data: { $objectType: 'clustermgmt.v4.config.Cluster', extId: PE1 } });
      const pc = await get(CLUSTERMGMT_CLUSTERS_PATH, PC);
      expect(pc.data.config).toMatchObject({ clusterFunction: ['PRISM_CENTRAL'], buildInfo: { version: 'pc' }, isLts: false });
      expect(pc.data.config).not.toHaveProperty('hypervisorTypes');

      const missing = await prism.client.request('GET', `${CLUSTERMGMT_CLUSTERS_PATH}/00000000-0000-4000-8000-000000000000`);
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({ $objectType: 'clustermgmt.v4.config.GetClusterApiResponse' });
      expect(firstAppMessage(missing)).toMatchObject({ $objectType: 'clustermgmt.v4.error.AppMessage', errorGroup: 'CLUSTER_NOT_FOUND' });
    });

    it('pages with $page and $limit as PGC pages (by metadata.totalAvailableResults), and sorts by name', async () => {
      const seen: string[] = [];
      for (let page = 0; ; page += 1) {
        const answer = await list(CLUSTERMGMT_CLUSTERS_PATH, `?$page=${page}&$limit=2&$orderby=name%20desc`);
        seen.push(...(names(answer) ?? []));
        if (seen.length >= answer.metadata.totalAvailableResults) break;
      }
      expect(seen).toEqual(['the-pc', 'pe-two', 'pe-one']);
      const past = await list(CLUSTERMGMT_CLUSTERS_PATH, '?$page=5&$limit=2');
      expect(past.data).toBeUndefined();
      expect(past.metadata.totalAvailableResults).toBe(3);
    });
  });

  describe('clustermgmt storage containers', () => {
    it("lists each Prism Element cluster's container, the one v3 VMs' disks land in, with containerExtId", async () => {
      const answer = await list(CLUSTERMGMT_STORAGE_CONTAINERS_PATH);
      expect(answer).toMatchObject({ $objectType: 'clustermgmt.v4.config.ListStorageContainersApiResponse', $dataItemDiscriminator: 'List<clustermgmt.v4.config.StorageContainer>', metadata: { totalAvailableResults: 2 } });
      const [first] = answer.data ?? [];
      expect(first).toEqual({
        $objectType: 'clustermgmt.v4.config.StorageContainer',
        $reserved: { $fv: 'v4.r2' },
        extId: first?.extId,
        containerExtId: first?.extId,
        name: 'SelfServiceContainer',
        clusterExtId: PE1,
        clusterName: 'pe-one',
        replicationFactor: 2,
        isInternal: false,
        isMarkedForRemoval: false,
      });
      expect(first?.extId).toMatch(/^[0-9a-f-]{36}$/);

      // A VM's disk shows the same container over v4.
      const v4 = new V4TestClient(prism.simulator);
      const vm = await v4.createReadyVm({ name: 'on-pe-one', numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: PE1 }, disks: [{ backingInfo: { $objectType: 'vmm.v4.ahv.config.VmDisk', diskSizeBytes: 1024 ** 3 } }] });
      const { vm: shown } = await v4.getVm(vm);
      expect(JSON.stringify(shown.disks)).toContain(first?.extId);
    });

    it('filters as CAPX does (containerExtId or name, and clusterExtId), and gets one by extId or answers 404', async () => {
      const [first, second] = (await list(CLUSTERMGMT_STORAGE_CONTAINERS_PATH)).data ?? [];
      const byId = await list(CLUSTERMGMT_STORAGE_CONTAINERS_PATH, filter(`containerExtId eq '${second?.extId ?? ''}' and clusterExtId eq '${PE2}'`));
      expect(byId.data?.map((c) => c.clusterExtId)).toEqual([PE2]);
      const byName = await list(CLUSTERMGMT_STORAGE_CONTAINERS_PATH, filter(`name eq 'SelfServiceContainer' and clusterExtId eq '${PE1}'`));
      expect(byName.data?.map((c) => c.extId)).toEqual([first?.extId]);
      expect((await list(CLUSTERMGMT_STORAGE_CONTAINERS_PATH, filter(`containerExtId eq '${first?.extId ?? ''}' and clusterExtId eq '${PE2}'`))).data).toBeUndefined();

      const one = await get(CLUSTERMGMT_STORAGE_CONTAINERS_PATH, first?.extId ?? '');
      expect(one).toMatchObject({ $objectType: 'clustermgmt.v4.config.GetStorageContainerApiResponse', data: { $objectType: 'clustermgmt.v4.config.StorageContainer', containerExtId: first?.extId } });
      const missing = await prism.client.request('GET', `${CLUSTERMGMT_STORAGE_CONTAINERS_PATH}/${PE1}`);
      expect(missing.status).toBe(404);
      expect(firstAppMessage(missing)).toMatchObject({ $objectType: 'clustermgmt.v4.error.AppMessage', errorGroup: 'STORAGE_CONTAINER_NOT_FOUND' });
    });
  });

  describe('networking subnets', () => {
    it('lists VLAN subnets with their cluster and overlay subnets with their VPC, each marked networking.v4.config.Subnet, IPAM ranges in ipConfig', async () => {
      const answer = await list(NETWORKING_SUBNETS_PATH);
      expect(answer).toMatchObject({ $objectType: 'networking.v4.config.ListSubnetsApiResponse', $dataItemDiscriminator: 'List<networking.v4.config.Subnet>', metadata: { totalAvailableResults: 3 } });
      const [vlanA, vlanB, overlay] = answer.data ?? [];
      expect(vlanA).toEqual({
        $objectType: 'networking.v4.config.Subnet',
        $reserved: { $fv: 'v4.r2' },
        extId: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f01',
        name: 'vlan-a',
        subnetType: 'VLAN',
        clusterReference: PE1,
        clusterName: 'pe-one',
        ipConfig: [
          {
            $objectType: 'networking.v4.config.IPConfig',
            $reserved: { $fv: 'v4.r2' },
            ipv4: {
              $objectType: 'networking.v4.config.IPv4Config',
              $reserved: { $fv: 'v4.r2' },
              ipSubnet: {
                $objectType: 'networking.v4.config.IPv4Subnet',
                $reserved: { $fv: 'v4.r2' },
                ip: { $objectType: 'common.v1.config.IPv4Address', $reserved: { $fv: 'v1.r0' }, value: '10.1.0.0', prefixLength: 32 },
                prefixLength: 24,
              },
            },
          },
        ],
        isExternal: false,
        isAdvancedNetworking: false,
      });
      // External DHCP: no range of the simulator's.
      expect(vlanB).toMatchObject({ subnetType: 'VLAN', clusterReference: PE2 });
      expect(vlanB).not.toHaveProperty('ipConfig');
      expect(overlay).toMatchObject({ $objectType: 'networking.v4.config.Subnet', subnetType: 'OVERLAY', vpcReference: VPC, isAdvancedNetworking: true, ipConfig: [{ ipv4: { ipSubnet: { prefixLength: 16 } } }] });
      expect(overlay).not.toHaveProperty('clusterReference');
    });

    it('filters on name, extId, clusterReference and subnetType; an empty answer has no data; gets one by extId or answers 404', async () => {
      expect(names(await list(NETWORKING_SUBNETS_PATH, filter("name eq 'vlan-b'")))).toEqual(['vlan-b']);
      expect(names(await list(NETWORKING_SUBNETS_PATH, filter(`clusterReference eq '${PE1}'`)))).toEqual(['vlan-a']);
      expect(names(await list(NETWORKING_SUBNETS_PATH, filter("subnetType eq networking.v4.config.SubnetType'OVERLAY'")))).toEqual(['overlay-c']);
      expect(names(await list(NETWORKING_SUBNETS_PATH, filter("extId eq 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f03' or name eq 'vlan-a'")))).toEqual(['vlan-a', 'overlay-c']);
      const none = await list(NETWORKING_SUBNETS_PATH, filter("name eq 'nope'"));
      expect(none).not.toHaveProperty('data');
      expect(none).not.toHaveProperty('$dataItemDiscriminator');

      const one = await get(NETWORKING_SUBNETS_PATH, 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f03');
      expect(one).toMatchObject({ $objectType: 'networking.v4.config.GetSubnetApiResponse', $dataItemDiscriminator: 'networking.v4.config.Subnet', data: { name: 'overlay-c', subnetType: 'OVERLAY' } });
      const missing = await prism.client.request('GET', `${NETWORKING_SUBNETS_PATH}/${PE1}`);
      expect(missing.status).toBe(404);
      expect(firstAppMessage(missing)).toMatchObject({ $objectType: 'networking.v4.error.AppMessage', errorGroup: 'SUBNET_NOT_FOUND' });
    });

    it('shows an overlay subnet over v3 with its VPC and no cluster, and lets a VM on any cluster use it', async () => {
      const v3 = await new PrismTestClient(prism.simulator).request('GET', '/subnets/c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f03');
      expect(v3.status).toBe(200);
      expect(v3.json).toMatchObject({ spec: { resources: { subnet_type: 'OVERLAY', vpc_reference: { kind: 'vpc', uuid: VPC } } } });
      expect((v3.json as { spec: Record<string, unknown> }).spec).not.toHaveProperty('cluster_reference');
      const v4 = new V4TestClient(prism.simulator);
      const nic = { nicNetworkInfo: { $objectType: 'vmm.v4.ahv.config.VirtualEthernetNicNetworkInfo', subnet: { extId: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f03' } } };
      for (const cluster of [PE1, PE2]) {
        const vm = await v4.createReadyVm({ name: `overlay-on-${cluster}`, numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: cluster }, nics: [nic] });
        expect((await v4.getVm(vm)).vm.nics[0]?.networkInfo.ipv4Config.ipAddress?.value).toMatch(/^172\.16\./);
      }
    });
  });

  describe('vmm content images', () => {
    it('lists images with createTime and sizeBytes, newest first with $orderby=createTime desc', async () => {
      const answer = await list(VMM_IMAGES_PATH, '?$page=0&$orderby=createTime%20desc');
      expect(answer).toMatchObject({ $objectType: 'vmm.v4.content.ListImagesApiResponse', $dataItemDiscriminator: 'List<vmm.v4.content.Image>', metadata: { totalAvailableResults: 3 } });
      // 2024-06-01T02:00:00+02:00 is midnight UTC, still the newest.
      expect(names(answer)).toEqual(['capx-ubuntu-2204-v1.31.0-new', 'rocky', 'capx-ubuntu-2204-v1.31.0-old']);
      expect(answer.data?.[0]).toEqual({
        $objectType: 'vmm.v4.content.Image',
        $reserved: { $fv: 'v4.r2' },
        extId: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02',
        name: 'capx-ubuntu-2204-v1.31.0-new',
        type: 'DISK_IMAGE',
        sizeBytes: 1024,
        createTime: '2024-06-01T02:00:00+02:00',
        lastUpdateTime: '2024-06-01T02:00:00+02:00',
        ownerExtId: '00000000-0000-0000-0000-000000000000',
        ownerName: 'admin',
        clusterLocationExtIds: [PE1, PE2],
      });
      expect(names(await list(VMM_IMAGES_PATH, '?$orderby=sizeBytes'))).toEqual(['capx-ubuntu-2204-v1.31.0-new', 'capx-ubuntu-2204-v1.31.0-old', 'rocky']);
      expect(names(await list(VMM_IMAGES_PATH, '?$orderby=createTime%20desc&$page=1&$limit=1'))).toEqual(['rocky']);
    });

    it('filters on name and extId, and gets one by extId or answers 404', async () => {
      expect(names(await list(VMM_IMAGES_PATH, filter("name eq 'rocky'")))).toEqual(['rocky']);
      expect(names(await list(VMM_IMAGES_PATH, filter("startswith(name,'capx-ubuntu-2204-v1.31.0-')")))?.sort()).toEqual(['capx-ubuntu-2204-v1.31.0-new', 'capx-ubuntu-2204-v1.31.0-old']);
      const one = await get(VMM_IMAGES_PATH, '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e03');
      expect(one).toMatchObject({ $objectType: 'vmm.v4.content.GetImageApiResponse', $dataItemDiscriminator: 'vmm.v4.content.Image', data: { name: 'rocky', sizeBytes: 4096, createTime: '2024-03-01T00:00:00Z' } });
      const missing = await prism.client.request('GET', `${VMM_IMAGES_PATH}/${PE1}`);
      expect(missing.status).toBe(404);
      expect(firstAppMessage(missing)).toMatchObject({ $objectType: 'vmm.v4.error.AppMessage', errorGroup: 'IMAGE_NOT_FOUND' });
    });
  });

  it('refuses what it does not support with a 400 that says what is', async () => {
    for (const [path, query, text] of [
      [CLUSTERMGMT_CLUSTERS_PATH, filter("config/clusterFunction eq 'AOS'"), "'config/clusterFunction' is not a filterable field (filterable: name, extId)"],
      [CLUSTERMGMT_STORAGE_CONTAINERS_PATH, filter("owner eq 'x'"), 'filterable: extId, containerExtId, name, clusterExtId'],
      [NETWORKING_SUBNETS_PATH, filter("vlanId eq '10'"), 'filterable: name, extId, subnetType, clusterReference, vpcReference'],
      [VMM_IMAGES_PATH, filter("sizeBytes eq '1'"), 'filterable: name, extId, type'],
      [VMM_IMAGES_PATH, filter("name eq 'unterminated"), 'unterminated string literal'],
      [VMM_IMAGES_PATH, '?$orderby=lastUpdateTime', "$orderby 'lastUpdateTime' is not supported by the simulator (it sorts by name or createTime or sizeBytes"],
      [CLUSTERMGMT_CLUSTERS_PATH, '?$limit=0', '$limit must be an integer between 1 and 100'],
      [CLUSTERMGMT_CLUSTERS_PATH, '?$expand=clusterProfile', '$expand is not supported by the simulator for Cluster lists (it supports $filter, $orderby, $page and $limit)'],
      [NETWORKING_SUBNETS_PATH, '?$select=name', '$select is not supported'],
    ] as const) {
      const reply = await prism.client.request('GET', `${path}${query}`);
      expect(reply.status, `${path}${query}`).toBe(400);
      const namespace = path.split('/')[2] ?? '';
      expect(firstAppMessage(reply)).toMatchObject({ $objectType: `${namespace}.v4.error.AppMessage`, errorGroup: 'INVALID_ARGUMENT' });
      expect(firstAppMessage(reply).message).toContain(text);
    }
  });
});

describe('the v4 inventory and the apis switch', () => {
  const paths = [CLUSTERMGMT_CLUSTERS_PATH, `${CLUSTERMGMT_CLUSTERS_PATH}/${PE1}`, CLUSTERMGMT_STORAGE_CONTAINERS_PATH, NETWORKING_SUBNETS_PATH, VMM_IMAGES_PATH];

  describe("apis: 'v3'", () => {
    const prism = useFastSimulator({ ...SEEDS, apis: 'v3' }, (simulator) => new V4TestClient(simulator));
    it('answers every v4 inventory path 404 in the v4 error shape of its namespace, while v3 lists the same inventory', async () => {
      for (const path of paths) {
        const reply = await prism.client.request('GET', path);
        expect(reply.status, path).toBe(404);
        expect(firstAppMessage(reply)).toMatchObject({ $objectType: `${path.split('/')[2] ?? ''}.v4.error.AppMessage`, errorGroup: 'NOT_FOUND' });
      }
      expect((await new PrismTestClient(prism.simulator).request('POST', '/subnets/list', { kind: 'subnet' })).status).toBe(200);
    });
  });

  describe("apis: 'v4'", () => {
    const prism = useFastSimulator({ ...SEEDS, apis: 'v4' }, (simulator) => new V4TestClient(simulator));
    it('serves the v4 inventory while the v3 inventory paths answer 404', async () => {
      for (const path of paths) expect((await prism.client.request('GET', path)).status, path).toBe(200);
      const v3 = new PrismTestClient(prism.simulator);
      for (const kind of ['cluster', 'subnet', 'image']) expect((await v3.request('POST', `/${kind}s/list`, { kind })).status, kind).toBe(404);
      expect((await v3.request('GET', `/clusters/${PE1}`)).status).toBe(404);
    });
  });
});
