// The clusters, images and subnets a simulator is started with, and the Prism Central's own cluster entity. VMs
// may only reference the clusters, images and subnets; a reference to anything else (the Prism Central included)
// fails the VM's task, as pc.2022.1+ reports such errors asynchronously.

import { randomUUID } from 'node:crypto';
import { parseCidr, type Ipv4Range } from './nic-addresses.ts';

export interface ClusterSeed {
  name: string;
  uuid: string;
  /** `metadata.creation_time` (RFC 3339); defaults to the simulator's start. */
  creationTime?: string;
  /** The GPUs of the cluster's hosts, by profile (v4 `physical-gpu-profiles` / `virtual-gpu-profiles`); default none. */
  gpus?: readonly GpuSeed[];
  /**
   * The cluster's storage containers; the first is where a disk that names none lands. Default one,
   * `SelfServiceContainer` (the container the recorded GET shows a disk on) with a fresh UUID.
   */
  storageContainers?: readonly StorageContainerSeed[];
}

/** A storage container of one cluster. Names are unique within a cluster; every cluster may have its own `default`. */
export interface StorageContainerSeed {
  name: string;
  uuid: string;
}

/** How a GPU profile is offered: whole devices passed through (for graphics or compute), or vGPU slices. */
export type GpuType = 'PASSTHROUGH_GRAPHICS' | 'PASSTHROUGH_COMPUTE' | 'VIRTUAL';

/** The vendors as clustermgmt v4.2 names them in `vendorName` (CAPX maps kNvidia, kIntel and kAmd). */
export type GpuVendorName = 'kNvidia' | 'kIntel' | 'kAmd';

/**
 * One GPU profile of a cluster: `count` devices (passthrough) or vGPU instances (VIRTUAL) of one kind. A VM created
 * with a matching GPU (`gpus[]` of its v4 body: same deviceId, passthrough or virtual mode) takes one; the profile is
 * `isInUse` once all are taken.
 */
export interface GpuSeed {
  type: GpuType;
  deviceId: number;
  deviceName: string;
  vendorName: GpuVendorName;
  /** Default 1. */
  count?: number;
  frameBufferSizeBytes?: number;
}

export interface ImageSeed {
  name: string;
  uuid: string;
  /** Size of the image; a disk cloned from it without `disk_size_mib` gets this size (rounded up to MiB). */
  sizeBytes: number;
  /** `metadata.creation_time` (RFC 3339); defaults to the simulator's start. CAPX picks the newest image by it. */
  creationTime?: string;
}

/**
 * A project VMs can be put in (v3 `metadata.project_reference`, v4 `project.extId`). Every Prism Central has a
 * `default` project; a VM that names none lands in `_internal`, which the recorded GET shows and no list does.
 */
export interface ProjectSeed {
  name: string;
  uuid: string;
  /** `metadata.creation_time` (RFC 3339); defaults to the simulator's start. */
  creationTime?: string;
}

/** A subnet's kind: a VLAN of one cluster, or an overlay subnet of a VPC that every cluster can use. */
export type SubnetType = 'VLAN' | 'OVERLAY';

export interface SubnetSeed {
  name: string;
  uuid: string;
  /** Default `VLAN`. */
  type?: SubnetType;
  /** IPv4 range of the subnet, e.g. `10.40.0.0/24`. */
  cidr: string;
  /**
   * `true` for an AHV IPAM-managed subnet: NICs get an `ASSIGNED` IP at creation, even while the VM is OFF.
   * `false` for a subnet with an external DHCP server: a `LEARNED` IP shows up only once the VM runs.
   */
  ipam: boolean;
  /** A VLAN subnet's cluster; defaults to the first cluster. An overlay subnet has none. */
  clusterUuid?: string;
  /** An overlay subnet's VPC (required for one, refused for a VLAN subnet): a real overlay subnet always names it. */
  vpcUuid?: string;
  /** `metadata.creation_time` (RFC 3339); defaults to the simulator's start. */
  creationTime?: string;
}

/**
 * The cluster entity of the Prism Central itself. A real PC lists it among the clusters (recorded
 * `POST /clusters/list`, prism-go-client mocks), told apart only by `status.resources.config.service_list`
 * `["PRISM_CENTRAL"]` where a Prism Element cluster says `["AOS"]`; clients such as CAPX filter it out by that.
 */
export interface PrismCentralSeed {
  name: string;
  uuid: string;
  creationTime?: string;
}

export const DEFAULT_CLUSTERS: readonly ClusterSeed[] = [{ name: 'sim-cluster-01', uuid: '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6a01' }];

export const DEFAULT_IMAGES: readonly ImageSeed[] = [
  { name: 'ubuntu-24.04-server-cloudimg', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e01', sizeBytes: 3_758_096_384 },
  { name: 'rocky-9-genericcloud', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e02', sizeBytes: 10_737_418_240 },
  { name: 'alpine-3.20-virt-iso', uuid: '7b1e0c52-9c3d-4f0a-8d6e-2a5b1c4d7e03', sizeBytes: 66_060_288 },
];

export const DEFAULT_PROJECTS: readonly ProjectSeed[] = [{ name: 'default', uuid: '5e1d3c7a-2b4f-4e6a-9c8d-0f1a2b3c4d01' }];

export const DEFAULT_SUBNETS: readonly SubnetSeed[] = [
  { name: 'vlan10-ipam', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f01', cidr: '10.40.10.0/24', ipam: true },
  { name: 'vlan20-dhcp', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f02', cidr: '192.168.20.0/24', ipam: false },
  { name: 'vlan30-ipam', uuid: 'c2a4e6f8-0b1d-4c3e-8f5a-6b7c8d9e0f03', cidr: '10.40.30.0/24', ipam: true },
];

/** The AOS release the recorded Prism Element cluster runs, shown by both APIs. */
export const AOS_VERSION = '6.5.4.5';

/** Every image is a disk image, in both APIs (v3 `image_type`, v4 `type`). */
export const IMAGE_TYPE = 'DISK_IMAGE';

/** The configuration every cluster entity reports in both APIs, as the recorded ones do. */
export const CLUSTER_CONFIG = { timezone: 'UTC', operationMode: 'NORMAL', redundancyFactor: 2, arch: 'X86_64' } as const;

/** The build version the Prism Central's own cluster entity reports (recorded). */
export const PRISM_CENTRAL_BUILD_VERSION = 'pc';

/** The built-in admin, as the recorded subnet shows it as owner (of the images and subnets, in both APIs). */
export const ADMIN_OWNER = { kind: 'user', uuid: '00000000-0000-0000-0000-000000000000', name: 'admin' } as const;

export const DEFAULT_PRISM_CENTRAL: PrismCentralSeed = { name: 'sim-prism-central', uuid: '0005f8a0-1d2c-4b6e-9a31-7c2e5d4f6aff' };

export interface Cluster extends Required<Omit<ClusterSeed, 'gpus' | 'storageContainers'>> {
  gpus: readonly Required<GpuSeed>[];
  /** The UUID of the cluster's one AHV host, which v3 `POST /hosts/list` shows with the cluster's GPUs. */
  hostUuid: string;
  /** The storage containers; the first is where new disks land unless they name one, as `storage_config` in the recorded GET shows. */
  storageContainers: readonly [StorageContainerSeed, ...StorageContainerSeed[]];
}

/** A storage container with its cluster, as both APIs list them. */
export interface StorageContainer extends StorageContainerSeed {
  cluster: Cluster;
}

export type Image = Required<ImageSeed>;

export type Project = Required<ProjectSeed>;

export interface Subnet extends Required<Omit<SubnetSeed, 'clusterUuid' | 'vpcUuid'>> {
  /** Undefined for an overlay subnet, which VMs on any cluster may use. */
  clusterUuid: string | undefined;
  /** Defined for an overlay subnet only. */
  vpcUuid: string | undefined;
  range: Ipv4Range;
}

export type PrismCentralEntity = Required<PrismCentralSeed>;

export interface InventorySeeds {
  clusters: readonly ClusterSeed[];
  images: readonly ImageSeed[];
  subnets: readonly SubnetSeed[];
  /** Default none. */
  projects?: readonly ProjectSeed[];
  prismCentral: PrismCentralSeed;
  /** When the simulator started (RFC 3339): the creation time of every seed that names none. */
  startedAt: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

export const GPU_TYPES: readonly GpuType[] = ['PASSTHROUGH_GRAPHICS', 'PASSTHROUGH_COMPUTE', 'VIRTUAL'];
export const GPU_VENDORS: readonly GpuVendorName[] = ['kNvidia', 'kIntel', 'kAmd'];

function validateGpu(gpu: GpuSeed, cluster: string): void {
  const problem = !GPU_TYPES.includes(gpu.type) ? `type must be one of ${GPU_TYPES.join(', ')}`
    : !GPU_VENDORS.includes(gpu.vendorName) ? `vendorName must be one of ${GPU_VENDORS.join(', ')}`
      : !Number.isInteger(gpu.deviceId) || gpu.deviceId < 0 ? 'deviceId must be a non-negative integer'
        : gpu.count !== undefined && (!Number.isInteger(gpu.count) || gpu.count < 1) ? 'count must be a positive integer'
          : undefined;
  if (problem !== undefined) throw new Error(`GPU ${gpu.deviceName} of cluster ${cluster}: ${problem}`);
}

export class Inventory {
  /** The Prism Element clusters: the only clusters VMs can be placed on. */
  readonly clusters: readonly Cluster[];
  readonly images: readonly Image[];
  readonly subnets: readonly Subnet[];
  readonly projects: readonly Project[];
  /** Listed and served as a cluster entity, but no VM can be placed on it. */
  readonly prismCentral: PrismCentralEntity;

  /** Validates the seeds so that a typo fails at start-up rather than as a puzzling task failure. */
  constructor(seeds: InventorySeeds) {
    const { clusters, images, subnets, prismCentral, startedAt } = seeds;
    const projects = seeds.projects ?? [];
    const firstCluster = clusters[0];
    if (!firstCluster) throw new Error('the simulator needs at least one cluster');
    for (const seed of [...clusters, ...images, ...subnets, ...projects, prismCentral]) {
      if (!UUID.test(seed.uuid)) throw new Error(`'${seed.uuid}' (${seed.name}) is not a UUID`);
      if (seed.creationTime !== undefined && !RFC3339.test(seed.creationTime)) throw new Error(`creationTime '${seed.creationTime}' of ${seed.name} is not an RFC 3339 time such as 2024-02-05T21:15:17Z`);
    }
    const containers = clusters.flatMap((cluster) => cluster.storageContainers ?? []);
    for (const container of containers) if (!UUID.test(container.uuid)) throw new Error(`'${container.uuid}' (storage container ${container.name}) is not a UUID`);
    for (const cluster of clusters) {
      const names = (cluster.storageContainers ?? []).map((container) => container.name);
      if (cluster.storageContainers?.length === 0) throw new Error(`cluster ${cluster.name} needs at least one storage container (or leave storageContainers out)`);
      if (new Set(names).size !== names.length) throw new Error(`storage container names of cluster ${cluster.name} must be unique`);
    }
    const uuids = [...clusters, ...images, ...subnets, ...projects, prismCentral, ...containers].map((seed) => seed.uuid.toLowerCase());
    if (new Set(uuids).size !== uuids.length) throw new Error('cluster, image, subnet, project, storage container and Prism Central UUIDs must be unique');
    const created = (seed: { creationTime?: string }): string => seed.creationTime ?? startedAt;
    for (const cluster of clusters) for (const gpu of cluster.gpus ?? []) validateGpu(gpu, cluster.name);
    this.clusters = clusters.map(({ storageContainers: [first, ...more] = [], ...seed }) => ({
      ...seed,
      creationTime: created(seed),
      storageContainers: first === undefined ? [{ name: 'SelfServiceContainer', uuid: randomUUID() }] : [first, ...more],
      hostUuid: randomUUID(),
      gpus: (seed.gpus ?? []).map((gpu) => ({ count: 1, frameBufferSizeBytes: 0, ...gpu })),
    }));
    this.images = images.map((seed) => ({ ...seed, creationTime: created(seed) }));
    this.projects = projects.map((seed) => ({ ...seed, creationTime: created(seed) }));
    this.subnets = subnets.map((seed) => {
      const type = seed.type ?? 'VLAN';
      const common = { ...seed, type, creationTime: created(seed), range: parseCidr(seed.cidr) };
      if (type === 'OVERLAY') {
        // The network controller manages an overlay subnet's addresses, and its VPC spans the clusters.
        if (seed.vpcUuid === undefined || !UUID.test(seed.vpcUuid) || seed.clusterUuid !== undefined || !seed.ipam) throw new Error(`overlay subnet ${seed.name} needs a vpcUuid (a UUID), ipam: true and no clusterUuid`);
        return { ...common, clusterUuid: undefined, vpcUuid: seed.vpcUuid };
      }
      const clusterUuid = seed.clusterUuid ?? firstCluster.uuid;
      if (!clusters.some((c) => c.uuid === clusterUuid)) throw new Error(`subnet ${seed.name} names unknown cluster ${clusterUuid}`);
      if (seed.vpcUuid !== undefined) throw new Error(`VLAN subnet ${seed.name} cannot have a vpcUuid`);
      return { ...common, clusterUuid, vpcUuid: undefined };
    });
    this.prismCentral = { ...prismCentral, creationTime: created(prismCentral) };
  }

  /** Where a VM without `cluster_reference` is placed (the minimal documented body has none). */
  get defaultCluster(): Cluster {
    const [first] = this.clusters;
    if (!first) throw new Error('unreachable: the constructor requires a cluster');
    return first;
  }

  cluster(uuid: string): Cluster | undefined {
    return this.clusters.find((c) => c.uuid === uuid);
  }

  image(uuid: string): Image | undefined {
    return this.images.find((i) => i.uuid === uuid);
  }

  /** The project (any letter case). */
  project(uuid: string): Project | undefined {
    return this.projects.find((p) => p.uuid.toLowerCase() === uuid.toLowerCase());
  }

  /** Whether `uuid` is the Prism Central's own cluster entity (case-insensitive). */
  isPrismCentral(uuid: string): boolean {
    return this.prismCentral.uuid.toLowerCase() === uuid.toLowerCase();
  }

  subnet(uuid: string): Subnet | undefined {
    return this.subnets.find((s) => s.uuid === uuid);
  }

  /** Every cluster's storage containers, cluster by cluster. */
  get storageContainers(): StorageContainer[] {
    return this.clusters.flatMap((cluster) => cluster.storageContainers.map((container) => ({ ...container, cluster })));
  }

  /** The storage container (any letter case), on whichever cluster it is. */
  storageContainer(uuid: string): StorageContainer | undefined {
    return this.storageContainers.find((container) => container.uuid.toLowerCase() === uuid.toLowerCase());
  }
}
