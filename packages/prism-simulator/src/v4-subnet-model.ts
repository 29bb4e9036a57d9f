// Subnets as networking v4.2 shows them (networking-go-client/v4 v4.2.1, `networking.v4.config.Subnet`), over the
// inventory the v3 subnets come from: `subnetType` `VLAN` with its cluster in `clusterReference` (CAPX keeps a subnet
// found by name only when that is the machine's cluster), or `OVERLAY` with its VPC in `vpcReference` (accepted on
// any cluster); an IPAM subnet has its range in `ipConfig`. Every item carries its `$objectType`: the SDK tries
// `SubnetProjection` first, so an unmarked list item would not decode as a Subnet.

import { COMMON_RESERVED } from './v4-errors.ts';
import { v4Object } from './v4-envelope.ts';
import type { Inventory, Subnet } from './inventory.ts';
import type { V4InventoryResource } from './v4-inventory.ts';

const MODELS = 'networking.v4.config';

function ipConfig(subnet: Subnet): Record<string, unknown>[] {
  if (!subnet.ipam) return [];
  const [ip = '', prefix = '0'] = subnet.cidr.split('/');
  const ipSubnet = v4Object(`${MODELS}.IPv4Subnet`, { ip: v4Object('common.v1.config.IPv4Address', { value: ip, prefixLength: 32 }, COMMON_RESERVED), prefixLength: Number(prefix) });
  return [v4Object(`${MODELS}.IPConfig`, { ipv4: v4Object(`${MODELS}.IPv4Config`, { ipSubnet }) })];
}

function renderSubnet(subnet: Subnet, inventory: Inventory): Record<string, unknown> {
  const cluster = subnet.clusterUuid === undefined ? undefined : inventory.cluster(subnet.clusterUuid);
  const addresses = ipConfig(subnet);
  return v4Object(`${MODELS}.Subnet`, {
    extId: subnet.uuid,
    name: subnet.name,
    subnetType: subnet.type,
    ...(cluster ? { clusterReference: cluster.uuid, clusterName: cluster.name } : {}),
    ...(subnet.vpcUuid === undefined ? {} : { vpcReference: subnet.vpcUuid }),
    ...(addresses.length > 0 ? { ipConfig: addresses } : {}),
    isExternal: false,
    isAdvancedNetworking: subnet.type === 'OVERLAY',
  });
}

export const V4_SUBNETS: V4InventoryResource<Subnet> = {
  models: MODELS,
  item: 'Subnet',
  listResponse: 'ListSubnetsApiResponse',
  getResponse: 'GetSubnetApiResponse',
  notFound: { errorGroup: 'SUBNET_NOT_FOUND', code: 'NET-10404', label: 'Subnet' },
  items: (inventory) => inventory.subnets,
  extIdOf: (subnet) => subnet.uuid,
  filter: {
    name: (subnet) => subnet.name,
    extId: (subnet) => subnet.uuid,
    subnetType: (subnet) => subnet.type,
    clusterReference: (subnet) => subnet.clusterUuid ?? '',
    vpcReference: (subnet) => subnet.vpcUuid ?? '',
  },
  orderBy: { name: (subnet) => subnet.name },
  render: renderSubnet,
};
