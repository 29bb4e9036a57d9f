import { describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTERS, DEFAULT_IMAGES, DEFAULT_PRISM_CENTRAL, DEFAULT_SUBNETS, Inventory } from './inventory.ts';
import type { VmIntentInput } from './vm-schema.ts';
import { buildVmSpec, type SpecBuildContext } from './vm-spec-builder.ts';
import type { VmSpec } from './vm-store.ts';

const inventory = new Inventory({ clusters: DEFAULT_CLUSTERS, images: DEFAULT_IMAGES, subnets: DEFAULT_SUBNETS, prismCentral: DEFAULT_PRISM_CENTRAL, startedAt: '2025-01-01T00:00:00Z' });
const [ipam, dhcp] = DEFAULT_SUBNETS;
const [image] = DEFAULT_IMAGES;
if (!ipam || !dhcp || !image) throw new Error('default seeds changed');

let counter = 0;
function context(overrides: Partial<SpecBuildContext> = {}): SpecBuildContext {
  return {
    inventory,
    previous: undefined,
    previousLearnedIps: new Map(),
    ipsInUse: new Set(),
    macsInUse: new Set(),
    newUuid: () => `00000000-0000-4000-8000-${String((counter += 1)).padStart(12, '0')}`,
    ...overrides,
  };
}

function spec(resources: VmIntentInput['spec']['resources'], extra: Partial<VmIntentInput['spec']> = {}): VmIntentInput['spec'] {
  return { name: 'vm', resources, ...extra };
}

describe('buildVmSpec on create', () => {
  it('fills the recorded defaults: 1 socket, 1 vCPU, 1 GiB, OFF, default cluster with its name', () => {
    const { spec: built, problems } = buildVmSpec(spec({}), context());
    expect(problems).toEqual([]);
    expect(built.resources).toMatchObject({
      num_sockets: 1,
      num_vcpus_per_socket: 1,
      num_threads_per_core: 1,
      memory_size_mib: 1024,
      power_state: 'OFF',
      power_state_mechanism: { mechanism: 'HARD' },
      machine_type: 'PC',
      boot_config: { boot_device_order_list: ['CDROM', 'DISK', 'NETWORK'], boot_type: 'LEGACY' },
      disk_list: [],
      nic_list: [],
    });
    expect(built.cluster_reference).toEqual({ kind: 'cluster', name: DEFAULT_CLUSTERS[0]?.name, uuid: DEFAULT_CLUSTERS[0]?.uuid });
  });

  it('merges nested client values over defaults (boot_type UEFI keeps the default boot order)', () => {
    const { spec: built } = buildVmSpec(spec({ boot_config: { boot_type: 'UEFI' } }), context());
    expect(built.resources.boot_config).toEqual({ boot_device_order_list: ['CDROM', 'DISK', 'NETWORK'], boot_type: 'UEFI' });
  });

  it('assigns disk uuids, addresses and sizes (from the image when no size is given)', () => {
    const { spec: built, problems } = buildVmSpec(spec({
      disk_list: [
        { data_source_reference: { kind: 'image', uuid: image.uuid } },
        { disk_size_mib: 8192 },
        { device_properties: { device_type: 'CDROM' } },
        { disk_size_bytes: 1024 * 1024 * 1024 + 1 },
      ],
    }), context());
    expect(problems).toEqual([]);
    const disks = built.resources.disk_list;
    expect(disks.map((d) => `${d.device_properties.disk_address.adapter_type}.${d.device_properties.disk_address.device_index}`)).toEqual(['SCSI.0', 'SCSI.1', 'IDE.0', 'SCSI.2']);
    expect(disks[0]?.disk_size_mib).toBe(Math.ceil(image.sizeBytes / 1048576));
    expect(disks[1]).toMatchObject({ disk_size_mib: 8192, disk_size_bytes: 8192 * 1048576 });
    expect(disks[2]?.disk_size_mib).toBeUndefined();
    expect(disks[3]).toMatchObject({ disk_size_mib: 1025, disk_size_bytes: 1025 * 1048576 });
    expect(new Set(disks.map((d) => d.uuid)).size).toBe(4);
  });

  it('gives IPAM NICs an ASSIGNED address and NICs on other subnets a DHCP address for later', () => {
    const { spec: built, learnedIps, problems } = buildVmSpec(spec({
      nic_list: [{ subnet_reference: { kind: 'subnet', uuid: ipam.uuid } }, { subnet_reference: { kind: 'subnet', uuid: dhcp.uuid } }],
    }), context({ ipsInUse: new Set(['10.40.10.2']) }));
    expect(problems).toEqual([]);
    const [managed, external] = built.resources.nic_list;
    expect(managed).toMatchObject({ ip_endpoint_list: [{ ip: '10.40.10.3', type: 'ASSIGNED' }], is_connected: true, subnet_reference: { name: ipam.name } });
    expect(external?.ip_endpoint_list).toEqual([]);
    expect(learnedIps.get(external?.uuid ?? '')).toBe('192.168.20.2');
    expect(managed?.mac_address).toMatch(/^50:6b:8d:/);
  });

  it('reports unknown references, IPs in use and impossible disks as task problems', () => {
    const { problems } = buildVmSpec(spec({
      disk_list: [{ data_source_reference: { kind: 'image', uuid: '11111111-1111-4111-8111-111111111111' } }, {}],
      nic_list: [
        { subnet_reference: { kind: 'subnet', uuid: '22222222-2222-4222-8222-222222222222' } },
        { subnet_reference: { kind: 'subnet', uuid: ipam.uuid }, ip_endpoint_list: [{ ip: '10.40.10.9' }] },
      ],
    }, { cluster_reference: { kind: 'cluster', uuid: '33333333-3333-4333-8333-333333333333' } }), context({ ipsInUse: new Set(['10.40.10.9']) }));
    expect(problems.map((p) => p.errorDetail)).toEqual([
      'ENTITY_NOT_FOUND: Cluster with uuid 33333333-3333-4333-8333-333333333333 does not exist',
      'ENTITY_NOT_FOUND: Image with uuid 11111111-1111-4111-8111-111111111111 does not exist',
      'INVALID_ARGUMENT: Disk at scsi.1 needs disk_size_mib or a data_source_reference',
      'ENTITY_NOT_FOUND: Subnet with uuid 22222222-2222-4222-8222-222222222222 does not exist',
      'INVALID_ARGUMENT: IP address 10.40.10.9 is already in use in subnet vlan10-ipam',
    ]);
  });
});

describe('buildVmSpec on update', () => {
  const created = buildVmSpec(spec({
    disk_list: [{ disk_size_mib: 4096 }],
    nic_list: [{ subnet_reference: { kind: 'subnet', uuid: ipam.uuid } }, { subnet_reference: { kind: 'subnet', uuid: dhcp.uuid } }],
  }), context());
  const previous: VmSpec = created.spec;
  const [disk] = previous.resources.disk_list;
  const [managedNic, externalNic] = previous.resources.nic_list;
  if (!disk || !managedNic || !externalNic) throw new Error('setup failed');

  it('keeps the uuids, MACs and IPs of disks and NICs the client sends back by uuid', () => {
    const { spec: built, learnedIps, problems } = buildVmSpec(spec({
      disk_list: [{ uuid: disk.uuid, disk_size_mib: 8192 }],
      nic_list: [{ uuid: managedNic.uuid, is_connected: true }, { uuid: externalNic.uuid, is_connected: true }, { subnet_reference: { kind: 'subnet', uuid: ipam.uuid }, is_connected: true }],
    }), context({ previous, previousLearnedIps: created.learnedIps }));
    expect(problems).toEqual([]);
    expect(built.resources.disk_list[0]).toMatchObject({ uuid: disk.uuid, disk_size_mib: 8192, device_properties: disk.device_properties });
    const [keptManaged, keptExternal, added] = built.resources.nic_list;
    expect(keptManaged).toMatchObject({ uuid: managedNic.uuid, mac_address: managedNic.mac_address, ip_endpoint_list: managedNic.ip_endpoint_list });
    expect(learnedIps.get(keptExternal?.uuid ?? '')).toBe(created.learnedIps.get(externalNic.uuid));
    // A NIC added in the same update must not take the address the kept NIC holds.
    expect(added?.ip_endpoint_list[0]?.ip).not.toBe(managedNic.ip_endpoint_list[0]?.ip);
  });

  it("refuses to shrink a disk, as AHV does (\"Can't shrink disk\")", () => {
    const { problems } = buildVmSpec(spec({ disk_list: [{ uuid: disk.uuid, disk_size_mib: 1024 }] }), context({ previous }));
    expect(problems).toEqual([{ errorCode: '27', errorDetail: "NotSupported: Can't shrink disk at scsi.0 from 4096 MiB to 1024 MiB" }]);
  });

  it('reports disks and NICs whose uuid the VM does not have', () => {
    const { problems } = buildVmSpec(spec({ nic_list: [{ uuid: '44444444-4444-4444-8444-444444444444', is_connected: true }] }), context({ previous }));
    expect(problems.map((p) => p.errorCode)).toEqual(['ENTITY_NOT_FOUND', 'INVALID_ARGUMENT']);
  });

  it('treats a PUT as a full replace: left-out lists are emptied and left-out values return to defaults', () => {
    const { spec: built } = buildVmSpec(spec({ num_sockets: 2 }), context({ previous }));
    expect(built.resources.nic_list).toEqual([]);
    expect(built.resources.disk_list).toEqual([]);
    expect(built.resources.memory_size_mib).toBe(1024);
    expect(built.cluster_reference.uuid).toBe(previous.cluster_reference.uuid);
  });
});
