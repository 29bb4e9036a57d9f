// Clusters, images and subnets as GET /<kind>s/{uuid} and POST /<kind>s/list show them, modelled on the responses
// prism-go-client recorded against pc.2024.1 (TestOperations_GetCluster, _ListCluster, _GetSubnet): `metadata` with
// `kind`, `uuid`, `creation_time`, `last_update_time`, `spec_version`, `spec_hash`, `categories` and
// `categories_mapping`; `spec` and `status` with the name and what the operator and CAPX read. Inventory is never
// changed through the simulator, so `spec_version` stays 0 and `last_update_time` is the creation time.

import { API_VERSION, PrismApiError } from './errors.ts';
import { ADMIN_OWNER, AOS_VERSION, CLUSTER_CONFIG, IMAGE_TYPE, PRISM_CENTRAL_BUILD_VERSION, type Cluster, type Inventory, type PrismCentralEntity } from './inventory.ts';
import { ZERO_SPEC_HASH } from './vm-view.ts';

export type InventoryKind = 'cluster' | 'image' | 'subnet' | 'project';

export interface InventoryEntity {
  metadata: {
    kind: InventoryKind;
    uuid: string;
    creation_time: string;
    last_update_time: string;
    spec_version: number;
    spec_hash: string;
    categories: Record<string, string>;
    categories_mapping: Record<string, string[]>;
    [key: string]: unknown;
  };
  spec: { name: string; [key: string]: unknown };
  status: { name: string; state: 'COMPLETE'; [key: string]: unknown };
}

function entity(kind: InventoryKind, uuid: string, name: string, creationTime: string, parts: { metadata?: Record<string, unknown>; spec: Record<string, unknown>; status: Record<string, unknown> }): InventoryEntity {
  return {
    metadata: {
      kind,
      uuid,
      creation_time: creationTime,
      last_update_time: creationTime,
      spec_version: 0,
      spec_hash: ZERO_SPEC_HASH,
      categories: {},
      categories_mapping: {},
      ...parts.metadata,
    },
    spec: { name, ...parts.spec },
    status: { name, state: 'COMPLETE', ...parts.status },
  };
}

const v3ClusterConfig = { timezone: CLUSTER_CONFIG.timezone, operation_mode: CLUSTER_CONFIG.operationMode, redundancy_factor: CLUSTER_CONFIG.redundancyFactor };

/** A Prism Element cluster: `service_list` `["AOS"]`, one AHV host, versions as recorded. */
function peClusterEntity(cluster: Cluster): InventoryEntity {
  const config = { ...v3ClusterConfig, software_map: { NOS: { software_type: 'NOS', status: 'INSTALLED', version: AOS_VERSION } } };
  return entity('cluster', cluster.uuid, cluster.name, cluster.creationTime, {
    spec: { resources: { config } },
    status: {
      resources: {
        config: { ...config, service_list: ['AOS'], is_available: true, cluster_arch: CLUSTER_CONFIG.arch, build: { build_type: 'release', version: AOS_VERSION, is_long_term_support: true } },
        nodes: { hypervisor_server_list: [{ type: 'AHV', version: 'el7.nutanix.20220304.462' }] },
      },
    },
  });
}

/** The Prism Central's own cluster entity: `service_list` `["PRISM_CENTRAL"]`, build version `pc`, no hypervisors. */
function prismCentralEntity(pc: PrismCentralEntity): InventoryEntity {
  const config = v3ClusterConfig;
  return entity('cluster', pc.uuid, pc.name, pc.creationTime, {
    spec: { resources: { config } },
    status: {
      resources: {
        config: { ...config, service_list: ['PRISM_CENTRAL'], is_available: true, cluster_arch: CLUSTER_CONFIG.arch, build: { build_type: 'release', version: PRISM_CENTRAL_BUILD_VERSION, is_long_term_support: false } },
      },
    },
  });
}

/** Every entity of `kind`, in seed order; the Prism Central comes after the Prism Element clusters, as recorded. */
export function inventoryEntities(inventory: Inventory, kind: InventoryKind): InventoryEntity[] {
  switch (kind) {
    case 'cluster':
      return [...inventory.clusters.map(peClusterEntity), prismCentralEntity(inventory.prismCentral)];
    case 'image':
      return inventory.images.map((i) =>
        entity('image', i.uuid, i.name, i.creationTime, {
          metadata: { owner_reference: ADMIN_OWNER },
          spec: { resources: { image_type: IMAGE_TYPE } },
          status: { resources: { image_type: IMAGE_TYPE, size_bytes: i.sizeBytes, architecture: 'X86_64' } },
        }),
      );
    case 'subnet':
      return inventory.subnets.map((s) => {
        const cluster = s.clusterUuid === undefined ? undefined : inventory.cluster(s.clusterUuid);
        // An overlay subnet belongs to its VPC, not to a cluster.
        const placement = cluster ? { cluster_reference: { kind: 'cluster', name: cluster.name, uuid: cluster.uuid } } : {};
        const [subnetIp = '', prefix = '0'] = s.cidr.split('/');
        const resources = {
          subnet_type: s.type,
          ...(s.vpcUuid === undefined ? {} : { vpc_reference: { kind: 'vpc', uuid: s.vpcUuid } }),
          ...(s.ipam ? { ip_config: { subnet_ip: subnetIp, prefix_length: Number(prefix) } } : {}),
        };
        return entity('subnet', s.uuid, s.name, s.creationTime, {
          metadata: { owner_reference: ADMIN_OWNER },
          spec: { ...placement, resources },
          status: { ...placement, resources },
        });
      });
    case 'project':
      // prism-go-client v3_structs.go Project: spec and status with name and resources; `is_default` marks the
      // project every Prism Central has. The simulator keeps no members, subnets or quotas: VMs only refer to it.
      return inventory.projects.map((p) => {
        const resources = { is_default: p.name === 'default', user_reference_list: [], subnet_reference_list: [] };
        return entity('project', p.uuid, p.name, p.creationTime, { metadata: { owner_reference: ADMIN_OWNER }, spec: { resources }, status: { resources } });
      });
  }
}

const LABELS: Record<InventoryKind, string> = { cluster: 'Cluster', image: 'Image', subnet: 'Subnet', project: 'Project' };

/**
 * GET /clusters/{uuid}, /images/{uuid}, /subnets/{uuid}, /projects/{uuid}: the entity as the list shows it plus `api_version`; an
 * unknown uuid is 404 `ENTITY_NOT_FOUND` with the entity's kind (the reason CAPX and TF test for).
 */
export function getInventoryEntity(inventory: Inventory, kind: InventoryKind, uuid: string): { status: 200; json: InventoryEntity & { api_version: string } } {
  const found = inventoryEntities(inventory, kind).find((e) => e.metadata.uuid.toLowerCase() === uuid.toLowerCase());
  if (!found) throw new PrismApiError(404, 'ENTITY_NOT_FOUND', `${LABELS[kind]} with uuid ${uuid} does not exist.`, { kind });
  return { status: 200, json: { api_version: API_VERSION, ...found } };
}
