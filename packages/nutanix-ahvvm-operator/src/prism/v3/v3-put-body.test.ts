import { describe, expect, it } from 'vitest';
import { CDROM, IMAGE_UUID, OTHER_SUBNET_UUID, SUBNET_UUID, desiredVm, disk, nic, prismVm } from '../../../test/prism-vm-fixture.ts';
import { applyDesiredToCurrentSpec, putBodyFor, withPowerState } from './v3-put-body.ts';

const SEED = { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 } as const;

describe('applyDesiredToCurrentSpec', () => {
  const current = prismVm({
    power: 'ON',
    disks: [CDROM, disk(0, 8192, IMAGE_UUID)],
    nics: [nic(SUBNET_UUID, '10.0.0.5', 0)],
    categories: { Team: 'a' },
    specVersion: 7,
  });

  it('sends spec and metadata with the spec_version read, never status or read-only metadata', () => {
    const body = applyDesiredToCurrentSpec(current, desiredVm(SEED));
    expect(Object.keys(body).sort()).toEqual(['metadata', 'spec']);
    expect(body.metadata).toEqual({
      kind: 'vm',
      uuid: current.metadata.uuid,
      spec_version: 7,
      spec_hash: current.metadata.spec_hash,
      categories: { Team: 'a' },
      project_reference: current.metadata.project_reference,
      owner_reference: current.metadata.owner_reference,
    });
  });

  it('changes only managed fields and keeps what Prism filled in', () => {
    const body = applyDesiredToCurrentSpec(current, desiredVm({ ...SEED, num_sockets: 4, memory_size_mib: 4096 }));
    expect(body.spec).toEqual({
      ...current.spec,
      resources: { ...current.spec.resources, num_sockets: 4, memory_size_mib: 4096 },
    });
  });

  it('keeps the power state the VM has, whatever the resource asks (power changes are steps of their own)', () => {
    expect(applyDesiredToCurrentSpec(current, desiredVm({ ...SEED, power_state: 'PoweredOff' })).spec.resources.power_state).toBe('ON');
  });

  it('grows matched disks, adds new ones and keeps CD-ROMs, uuids and storage config', () => {
    const body = applyDesiredToCurrentSpec(
      current,
      desiredVm({ ...SEED, disks: [{ image: { uuid: IMAGE_UUID }, size_mib: 16384 }, { size_mib: 1024 }] }),
    );
    expect(body.spec.resources.disk_list).toEqual([
      CDROM,
      { ...disk(0, 8192, IMAGE_UUID), disk_size_mib: 16384, disk_size_bytes: 16384 * 1024 * 1024 },
      { disk_size_mib: 1024 },
    ]);
  });

  it('never shrinks or removes a disk, even when asked', () => {
    const body = applyDesiredToCurrentSpec(current, desiredVm({ ...SEED, disks: [] }));
    expect(body.spec.resources.disk_list).toEqual(current.spec.resources.disk_list);
    const shrink = applyDesiredToCurrentSpec(current, desiredVm({ ...SEED, disks: [{ size_mib: 10 }] }));
    expect(shrink.spec.resources.disk_list).toEqual(current.spec.resources.disk_list);
  });

  it('keeps a NIC on the same subnet as it is, replaces one on another subnet and drops extra ones', () => {
    const twoNics = prismVm({ nics: [nic(SUBNET_UUID, '10.0.0.5', 0), nic(SUBNET_UUID, '10.0.0.6', 1)] });
    const body = applyDesiredToCurrentSpec(twoNics, desiredVm({ ...SEED, nics: [{ subnet: { uuid: SUBNET_UUID } }] }));
    expect(body.spec.resources.nic_list).toEqual([nic(SUBNET_UUID, '10.0.0.5', 0)]);
    const moved = applyDesiredToCurrentSpec(twoNics, desiredVm({ ...SEED, nics: [{ subnet: { uuid: OTHER_SUBNET_UUID } }] }));
    expect(moved.spec.resources.nic_list).toEqual([{ subnet_reference: { kind: 'subnet', uuid: OTHER_SUBNET_UUID }, is_connected: true }]);
  });

  it('sends is_connected for every NIC, as a PUT requires', () => {
    const withoutFlag = nic(SUBNET_UUID, '10.0.0.5');
    delete withoutFlag.is_connected;
    const body = applyDesiredToCurrentSpec(prismVm({ nics: [withoutFlag] }), desiredVm(SEED));
    expect(body.spec.resources.nic_list?.[0]?.is_connected).toBe(true);
  });

  it('applies boot type, categories, name and description', () => {
    const body = applyDesiredToCurrentSpec(
      prismVm({ name: 'renamed', description: 'by hand' }),
      desiredVm({ ...SEED, boot_type: 'UEFI', categories: { Team: 'b' }, description: 'web' }),
    );
    expect(body.spec.name).toBe('ahvvm-from-operator');
    expect(body.spec.description).toMatch(/^web\nnutanix\.com\/ahvvm-owner-uid: /);
    expect(body.spec.resources.boot_config).toEqual({ boot_device_order_list: ['CDROM', 'DISK', 'NETWORK'], boot_type: 'UEFI' });
    expect(body.metadata.categories).toEqual({ Team: 'b' });
  });

  it('does not modify the VM it was given', () => {
    const before = structuredClone(current);
    applyDesiredToCurrentSpec(current, desiredVm({ ...SEED, num_sockets: 4, disks: [{ size_mib: 99999 }] }));
    expect(current).toEqual(before);
  });
});

describe('putBodyFor', () => {
  const vm = prismVm({ power: 'ON', sockets: 2 });
  const desired = desiredVm({ ...SEED, num_sockets: 1 });

  it('changes only the power state for power steps', () => {
    expect(putBodyFor({ action: 'power-off' }, vm, desired)).toEqual(withPowerState(vm, 'OFF'));
    const off = putBodyFor({ action: 'power-off' }, vm, desired);
    expect(off.spec).toEqual({ ...vm.spec, resources: { ...vm.spec.resources, power_state: 'OFF' } });
    expect(putBodyFor({ action: 'power-on' }, prismVm(), desired).spec.resources.power_state).toBe('ON');
  });

  it('applies the desired spec for apply-spec', () => {
    expect(putBodyFor({ action: 'apply-spec' }, vm, desired)).toEqual(applyDesiredToCurrentSpec(vm, desired));
  });
});
