import { describe, expect, it } from 'vitest';
import {
  CDROM,
  IMAGE_UUID,
  OTHER_CLUSTER_UUID,
  OTHER_IMAGE_UUID,
  OTHER_SUBNET_UUID,
  OWNER_UID,
  STORAGE_CONTAINER_UUID,
  SUBNET_UUID,
  desiredVm,
  disk,
  nic,
  observedVm,
  prismVm,
} from '../../test/prism-vm-fixture.ts';
import type { AhvVmSpec } from '../api/ahvvm-resource.ts';
import { observedVmFromV3 } from '../prism/v3/v3-translation.ts';
import { diffVm } from './vm-diff.ts';

const SEED = { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 } as const;

/** The fields of the changes in each class, to keep expectations short. */
function classes(diff: ReturnType<typeof diffVm>) {
  const fields = (changes: { field: string }[]) => changes.map((c) => c.field);
  return { hotPlug: fields(diff.hotPlug), powerCycle: fields(diff.powerCycle), impossible: fields(diff.impossible) };
}

describe('diffVm', () => {
  it('finds nothing when the VM is as asked', () => {
    const diff = diffVm(observedVm(), desiredVm(SEED));
    expect(diff).toEqual({ hotPlug: [], powerCycle: [], impossible: [], power: undefined, none: true });
  });

  describe('on a running VM', () => {
    const on = { power: 'ON' } as const;

    it.each([
      ['more sockets', { num_sockets: 3 }, { hotPlug: ['num_sockets'], powerCycle: [] }],
      ['more memory', { memory_size_mib: 4096 }, { hotPlug: ['memory_size_mib'], powerCycle: [] }],
      ['fewer sockets', { num_sockets: 1 }, { hotPlug: [], powerCycle: ['num_sockets'] }],
      ['less memory', { memory_size_mib: 1024 }, { hotPlug: [], powerCycle: ['memory_size_mib'] }],
      ['more vCPUs per socket', { num_vcpus_per_socket: 2 }, { hotPlug: [], powerCycle: ['num_vcpus_per_socket'] }],
      ['a new boot type', { boot_type: 'UEFI' }, { hotPlug: [], powerCycle: ['boot_type'] }],
      ['a description', { description: 'web' }, { hotPlug: ['description'], powerCycle: [] }],
      ['categories', { categories: { Environment: 'Dev' } }, { hotPlug: ['categories'], powerCycle: [] }],
    ] as const)('classifies %s', (_what, change, expected) => {
      const diff = diffVm(observedVm(on), desiredVm({ ...SEED, ...change }));
      expect(classes(diff)).toEqual({ ...expected, impossible: [] });
      expect(diff.none).toBe(false);
    });

    it('records from and to of each change', () => {
      const diff = diffVm(observedVm(on), desiredVm({ ...SEED, num_sockets: 4, num_vcpus_per_socket: 2 }));
      expect(diff.hotPlug).toEqual([{ field: 'num_sockets', from: 2, to: 4 }]);
      expect(diff.powerCycle).toEqual([{ field: 'num_vcpus_per_socket', from: 1, to: 2 }]);
    });

    it('adds and grows disks and changes NICs live', () => {
      const vm = observedVm({ ...on, disks: [disk(0, 8192, IMAGE_UUID)], nics: [nic(SUBNET_UUID, '10.0.0.5')] });
      const diff = diffVm(
        vm,
        desiredVm({
          ...SEED,
          disks: [{ image: { uuid: IMAGE_UUID }, size_mib: 16384 }, { size_mib: 1024 }],
          nics: [{ subnet: { uuid: OTHER_SUBNET_UUID } }, { subnet: { uuid: SUBNET_UUID } }],
        }),
      );
      expect(diff.hotPlug).toEqual([
        { field: 'disks[0].size_mib', from: 8192, to: 16384, device: { kind: 'grow-disk', id: disk(0, 0).uuid, sizeMib: 16384 } },
        { field: 'disks[1]', from: undefined, to: { image: undefined, size_mib: 1024 }, device: { kind: 'add-disk', disk: { sizeMib: 1024 } } },
        { field: 'nics[0].subnet', from: SUBNET_UUID, to: OTHER_SUBNET_UUID, device: { kind: 'move-nic', id: nic(SUBNET_UUID, '', 0).uuid, nic: { subnetUuid: OTHER_SUBNET_UUID } } },
        { field: 'nics[1]', from: undefined, to: { subnet: SUBNET_UUID }, device: { kind: 'add-nic', nic: { subnetUuid: SUBNET_UUID } } },
      ]);
      expect(diff.powerCycle).toEqual([]);
    });

    it('removes NICs beyond the desired list live', () => {
      const vm = observedVm({ ...on, nics: [nic(SUBNET_UUID, '10.0.0.5', 0), nic(OTHER_SUBNET_UUID, '10.0.1.5', 1)] });
      const diff = diffVm(vm, desiredVm({ ...SEED, nics: [{ subnet: { uuid: SUBNET_UUID } }] }));
      expect(diff.hotPlug).toEqual([{ field: 'nics[1]', from: { subnet: OTHER_SUBNET_UUID }, to: undefined, device: { kind: 'remove-nic', id: nic(OTHER_SUBNET_UUID, '', 1).uuid } }]);
    });
  });

  describe('on a stopped VM', () => {
    it('applies everything that needs a power cycle on a running VM directly', () => {
      const diff = diffVm(
        observedVm({ power: 'OFF' }),
        desiredVm({ num_sockets: 1, num_vcpus_per_socket: 2, memory_size_mib: 1024, boot_type: 'SECURE_BOOT' }),
      );
      expect(classes(diff)).toEqual({
        hotPlug: ['num_sockets', 'num_vcpus_per_socket', 'memory_size_mib', 'boot_type'],
        powerCycle: [],
        impossible: [],
      });
    });

    it('judges the power state by status, which is what is applied', () => {
      const vm = prismVm({ power: 'ON' });
      vm.spec.resources.power_state = 'OFF';
      expect(classes(diffVm(observedVmFromV3(vm), desiredVm({ ...SEED, num_sockets: 1 }))).powerCycle).toEqual(['num_sockets']);
    });
  });

  describe('changes no update can make', () => {
    it.each<[string, AhvVmSpec, string, string]>([
      ['a disk shrink', { disks: [{ size_mib: 4096 }] }, 'disks[0].size_mib', 'Prism cannot shrink a disk'],
      ['re-imaging a disk', { disks: [{ image: { uuid: OTHER_IMAGE_UUID } }] }, 'disks[0].image', 'cannot be re-imaged'],
      ['removing a disk', { disks: [] }, 'disks[0]', 'never removes a disk'],
      ['another cluster', { cluster: { uuid: OTHER_CLUSTER_UUID } }, 'cluster', 'cannot move a VM to another cluster'],
    ])('marks %s impossible, whatever the power state', (_what, change, field, why) => {
      for (const power of ['ON', 'OFF'] as const) {
        const diff = diffVm(observedVm({ power, disks: [disk(0, 8192, IMAGE_UUID)] }), desiredVm({ ...SEED, ...change }));
        expect(diff.impossible).toEqual([expect.objectContaining({ field, why: expect.stringContaining(why) as string })]);
        expect(diff.hotPlug).toEqual([]);
      }
    });
  });

  it('leaves unmanaged fields alone: disks, NICs, categories, boot type and power', () => {
    const vm = observedVm({
      power: 'ON',
      bootType: 'UEFI',
      disks: [disk(0, 8192), disk(1, 1024)],
      nics: [nic(SUBNET_UUID, '10.0.0.5')],
      categories: { Team: 'a' },
    });
    expect(diffVm(vm, desiredVm(SEED)).none).toBe(true);
  });

  it('never re-images a disk because an image_lookup now finds a newer image, but makes new disks from it', () => {
    const vm = observedVm({ disks: [disk(0, 8192, IMAGE_UUID)] });
    const desired = { ...desiredVm(SEED), disks: [{ imageUuid: OTHER_IMAGE_UUID, imageFromLookup: true }, { imageUuid: OTHER_IMAGE_UUID, imageFromLookup: true }] };
    expect(classes(diffVm(vm, desired))).toEqual({ hotPlug: ['disks[1]'], powerCycle: [], impossible: [] });
    expect(classes(diffVm(vm, { ...desired, disks: [{ imageUuid: OTHER_IMAGE_UUID }] })).impossible).toEqual(['disks[0].image']);
  });

  it('never moves an existing disk to another storage container; a new disk goes where it is asked', () => {
    const other = '5c0e7a10-0000-4000-8000-0000000000ff';
    const vm = observedVm({ disks: [{ ...disk(0, 1024), storage_config: { storage_container_reference: { kind: 'storage_container', uuid: other } } }] });
    const diff = diffVm(vm, { ...desiredVm(SEED), disks: [{ sizeMib: 1024, storageContainerUuid: STORAGE_CONTAINER_UUID }, { sizeMib: 1024, storageContainerUuid: STORAGE_CONTAINER_UUID }] });
    expect(diff.impossible).toEqual([{ field: 'disks[0].storage_container', from: other, to: STORAGE_CONTAINER_UUID, why: 'the operator never moves an existing disk to another storage container' }]);
    expect(diff.hotPlug.map((change) => change.device)).toEqual([{ kind: 'add-disk', disk: { sizeMib: 1024, storageContainerUuid: STORAGE_CONTAINER_UUID } }]);
  });

  it('ignores CD-ROMs when matching disks by position', () => {
    const vm = observedVm({ disks: [CDROM, disk(0, 8192, IMAGE_UUID)] });
    expect(diffVm(vm, desiredVm({ ...SEED, disks: [{ image: { name: 'ubuntu' } }] })).none).toBe(true);
  });

  it('reads a disk size from disk_size_bytes when disk_size_mib is missing', () => {
    const bytesOnly = disk(0, 8192);
    delete bytesOnly.disk_size_mib;
    expect(diffVm(observedVm({ disks: [bytesOnly] }), desiredVm({ ...SEED, disks: [{ size_mib: 8192 }] })).none).toBe(true);
  });

  it('reports a power state the resource asks for', () => {
    expect(diffVm(observedVm({ power: 'OFF' }), desiredVm({ ...SEED, power_state: 'PoweredOn' })).power).toEqual({ from: 'OFF', to: 'ON' });
    expect(diffVm(observedVm({ power: 'ON' }), desiredVm({ ...SEED, power_state: 'PoweredOff' })).power).toEqual({ from: 'ON', to: 'OFF' });
    expect(diffVm(observedVm({ power: 'ON' }), desiredVm({ ...SEED, power_state: 'PoweredOn' })).none).toBe(true);
  });

  it('restores a name and description changed in Prism, marker included', () => {
    const diff = diffVm(observedVm({ name: 'renamed', description: 'edited by hand' }), desiredVm(SEED));
    expect(diff.hotPlug).toEqual([
      { field: 'name', from: 'renamed', to: 'ahvvm-from-operator' },
      { field: 'description', from: 'edited by hand', to: `nutanix.com/ahvvm-owner-uid: ${OWNER_UID}` },
    ]);
  });
});
