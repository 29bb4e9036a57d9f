// Clusters and storage containers as clustermgmt v4.2 shows them (clustermgmt-go-client/v4 v4.2.2,
// `clustermgmt.v4.config.Cluster` and `StorageContainer`), over the inventory the v3 clusters come from. The Prism
// Central's own cluster entity is listed after the Prism Element clusters, as v3 lists it, and told apart the way
// CAPX tells them apart: `config.clusterFunction` is `["PRISM_CENTRAL"]` where a Prism Element cluster says
// `["AOS"]` (CAPX's lookup by name keeps only `AOS` clusters). Each Prism Element cluster has its storage containers
// (the first is where disks that name none land); CAPX finds one by `name` and `clusterExtId` and refers to it by its
// `containerExtId`, which is its extId here too.

import { AOS_VERSION, CLUSTER_CONFIG, PRISM_CENTRAL_BUILD_VERSION, type Cluster, type PrismCentralEntity, type StorageContainer } from './inventory.ts';
import { v4Object } from './v4-envelope.ts';
import type { V4InventoryResource } from './v4-inventory.ts';

const MODELS = 'clustermgmt.v4.config';

/** A cluster entity as v4 lists it: a Prism Element cluster, or the Prism Central itself. */
interface ClusterEntity {
  name: string;
  uuid: string;
  prismCentral: boolean;
}

const clusterEntity = (entity: Cluster | PrismCentralEntity, prismCentral: boolean): ClusterEntity => ({ name: entity.name, uuid: entity.uuid, prismCentral });

function renderCluster({ name, uuid, prismCentral }: ClusterEntity): Record<string, unknown> {
  return v4Object(`${MODELS}.Cluster`, {
    extId: uuid,
    name,
    config: v4Object(`${MODELS}.ClusterConfigReference`, {
      clusterFunction: [prismCentral ? 'PRISM_CENTRAL' : 'AOS'],
      buildInfo: v4Object(`${MODELS}.BuildReference`, { buildType: 'release', version: prismCentral ? PRISM_CENTRAL_BUILD_VERSION : AOS_VERSION }),
      clusterArch: CLUSTER_CONFIG.arch,
      // The Prism Central hosts no VMs, so it has no hypervisor (v3 lists none for it either).
      ...(prismCentral ? {} : { hypervisorTypes: ['AHV'] }),
      isAvailable: true,
      isLts: !prismCentral,
      operationMode: CLUSTER_CONFIG.operationMode,
      redundancyFactor: CLUSTER_CONFIG.redundancyFactor,
      timezone: CLUSTER_CONFIG.timezone,
    }),
    nodes: v4Object(`${MODELS}.NodeReference`, { numberOfNodes: 1 }),
  });
}

export const V4_CLUSTERS: V4InventoryResource<ClusterEntity> = {
  models: MODELS,
  item: 'Cluster',
  listResponse: 'ListClustersApiResponse',
  getResponse: 'GetClusterApiResponse',
  notFound: { errorGroup: 'CLUSTER_NOT_FOUND', code: 'CLU-10404', label: 'Cluster' },
  items: (inventory) => [...inventory.clusters.map((c) => clusterEntity(c, false)), clusterEntity(inventory.prismCentral, true)],
  extIdOf: (cluster) => cluster.uuid,
  filter: { name: (cluster) => cluster.name, extId: (cluster) => cluster.uuid },
  orderBy: { name: (cluster) => cluster.name },
  render: renderCluster,
};

export const V4_STORAGE_CONTAINERS: V4InventoryResource<StorageContainer> = {
  models: MODELS,
  item: 'StorageContainer',
  listResponse: 'ListStorageContainersApiResponse',
  getResponse: 'GetStorageContainerApiResponse',
  notFound: { errorGroup: 'STORAGE_CONTAINER_NOT_FOUND', code: 'CLU-20404', label: 'Storage container' },
  items: (inventory) => inventory.storageContainers,
  extIdOf: (container) => container.uuid,
  filter: {
    extId: (container) => container.uuid,
    containerExtId: (container) => container.uuid,
    name: (container) => container.name,
    clusterExtId: (container) => container.cluster.uuid,
  },
  orderBy: { name: (container) => container.name },
  render: (container) => v4Object(`${MODELS}.StorageContainer`, {
    extId: container.uuid,
    containerExtId: container.uuid,
    name: container.name,
    clusterExtId: container.cluster.uuid,
    clusterName: container.cluster.name,
    replicationFactor: CLUSTER_CONFIG.redundancyFactor,
    isInternal: false,
    isMarkedForRemoval: false,
  }),
};
