import { describe, expect, it } from 'vitest';
import { CDROM, IMAGE_UUID, OTHER_SUBNET_UUID, SUBNET_UUID, desiredVm, disk, nic, observedVm } from '../../../test/prism-vm-fixture.ts';
import { diffVm } from '../../vm/vm-diff.ts';
import type { DesiredVm, ObservedVm } from '../../vm/vm-model.ts';
import { nextV4Change as nextChange } from './v4-next-change.ts';

/** As the reconciler calls it: with the diff its plan was made from. */
const nextV4Change = (vm: ObservedVm, desired: DesiredVm) => nextChange(diffVm(vm, desired));

const SEED = { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 } as const;
const current = observedVm({ power: 'ON', disks: [CDROM, disk(0, 8192, IMAGE_UUID)], nics: [nic(SUBNET_UUID, '10.0.0.5', 0)] });
const IMAGE_DISK = { image: { uuid: IMAGE_UUID }, size_mib: 8192 };
const ONE_NIC = [{ subnet: { uuid: SUBNET_UUID } }];

describe('nextV4Change', () => {
  it("changes the VM's own configuration first, even when disks and NICs differ too", () => {
    expect(nextV4Change(current, desiredVm({ ...SEED, num_sockets: 4, disks: [IMAGE_DISK, { size_mib: 1024 }] }))).toEqual({ kind: 'vm' });
    expect(nextV4Change(current, desiredVm({ ...SEED, categories: { Environment: 'Prod' } }))).toEqual({ kind: 'vm' });
  });

  it('then grows a data disk matched by position (CD-ROMs do not count), then adds the missing ones', () => {
    const disks = [{ ...IMAGE_DISK, size_mib: 16384 }, { size_mib: 1024 }];
    expect(nextV4Change(current, desiredVm({ ...SEED, disks, nics: ONE_NIC }))).toEqual({ kind: 'grow-disk', extId: disk(0, 0).uuid, sizeMib: 16384 });
    const grown = observedVm({ power: 'ON', disks: [CDROM, disk(0, 16384, IMAGE_UUID)], nics: [nic(SUBNET_UUID, '10.0.0.5', 0)] });
    expect(nextV4Change(grown, desiredVm({ ...SEED, disks, nics: ONE_NIC }))).toEqual({ kind: 'add-disk', disk: { sizeMib: 1024 } });
  });

  it('then moves a NIC to the wanted subnet in place, adds missing NICs and removes extra ones', () => {
    const moved = [{ subnet: { uuid: OTHER_SUBNET_UUID } }];
    expect(nextV4Change(current, desiredVm({ ...SEED, nics: moved }))).toMatchObject({ kind: 'move-nic', extId: nic(SUBNET_UUID, '', 0).uuid, nic: { subnetUuid: OTHER_SUBNET_UUID } });
    expect(nextV4Change(current, desiredVm({ ...SEED, nics: [...ONE_NIC, ...moved] }))).toMatchObject({ kind: 'add-nic', nic: { subnetUuid: OTHER_SUBNET_UUID } });
    const two = observedVm({ power: 'ON', nics: [nic(SUBNET_UUID, '10.0.0.5', 0), nic(SUBNET_UUID, '10.0.0.6', 1)] });
    expect(nextV4Change(two, desiredVm({ ...SEED, nics: ONE_NIC }))).toEqual({ kind: 'remove-nic', extId: nic(SUBNET_UUID, '', 1).uuid });
  });

  it('never shrinks or removes a disk, and leaves devices alone when the resource does not manage them', () => {
    expect(nextV4Change(current, desiredVm({ ...SEED, disks: [], nics: ONE_NIC }))).toEqual({ kind: 'vm' });
    expect(nextV4Change(current, desiredVm({ ...SEED, disks: [{ size_mib: 10 }], nics: ONE_NIC }))).toEqual({ kind: 'vm' });
    expect(nextV4Change(current, desiredVm(SEED))).toEqual({ kind: 'vm' });
  });
});
