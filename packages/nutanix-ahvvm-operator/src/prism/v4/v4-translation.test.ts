import { describe, expect, it } from 'vitest';
import { desiredVm } from '../../../test/prism-vm-fixture.ts';
import { diffVm } from '../../vm/vm-diff.ts';
import type { PrismV4Task, PrismV4Vm } from './prism-v4-client.ts';
import { observedVmFromV4, UNNAMED_CATEGORY_PREFIX, v4CreateBody, v4UpdateBody, vmTaskFromV4 } from './v4-translation.ts';

const C = 'vmm.v4.ahv.config';
const PROD = '5b0c5e1e-0000-5000-8000-000000000001';
const extIdOf = (key: string, value: string): string => (key === 'Environment' && value === 'Prod' ? PROD : 'unknown');

/** A VM as the simulator's v4 API (and the v4.2 SDK's model) shows it. */
const V4_VM: PrismV4Vm = {
  $objectType: `${C}.Vm`,
  extId: 'bdbbad7a-0000-4000-8000-000000000001',
  name: 'web-01',
  description: 'web\nnutanix.com/ahvvm-owner-uid: u-1',
  cluster: { extId: '00061f7f-0000-4000-8000-000000000001' },
  numSockets: 2,
  numCoresPerSocket: 1,
  numThreadsPerCore: 1,
  memorySizeBytes: 4096 * 1024 * 1024,
  powerState: 'ON',
  $bootConfigItemDiscriminator: `${C}.UefiBoot`,
  bootConfig: { $objectType: `${C}.UefiBoot`, isSecureBootEnabled: false },
  categories: [{ extId: PROD }, { extId: 'aaaaaaaa-0000-5000-8000-000000000009' }],
  disks: [{ extId: 'd-1', diskAddress: { busType: 'SCSI', index: 0 }, backingInfo: { diskSizeBytes: 20 * 1024 ** 3, dataSource: { reference: { imageExtId: 'img-1' } } } }],
  cdRoms: [{ extId: 'cd-1', diskAddress: { busType: 'IDE', index: 0 } }],
  nics: [{
    extId: 'n-1',
    nicBackingInfo: { isConnected: true, macAddress: '50:6b:8d:00:00:01' },
    nicNetworkInfo: { subnet: { extId: 'sub-1' }, ipv4Config: { ipAddress: { value: '10.0.0.5' } }, ipv4Info: { learnedIpAddresses: [{ value: '10.0.0.6' }] } },
  }],
};

describe('observedVmFromV4', () => {
  it("reads a v4 VM in the operator's terms, which the diff and the status use", () => {
    const vm = observedVmFromV4(V4_VM, new Map([[PROD, ['Environment', 'Prod'] as const]]));
    expect(vm).toEqual({
      uuid: V4_VM.extId,
      name: 'web-01',
      description: V4_VM.description,
      clusterUuid: V4_VM.cluster?.extId,
      numSockets: 2,
      numVcpusPerSocket: 1,
      memoryMib: 4096,
      powerState: 'ON',
      bootType: 'UEFI',
      categories: { Environment: 'Prod', [`${UNNAMED_CATEGORY_PREFIX}aaaaaaaa-0000-5000-8000-000000000009`]: '' },
      // The CD-ROM is not one of the AhvVm's disks.
      disks: [{ id: 'd-1', imageUuid: 'img-1', sizeMib: 20480 }],
      nics: [{ id: 'n-1', subnetUuid: 'sub-1' }],
      ipAddresses: ['10.0.0.5', '10.0.0.6'],
      state: 'COMPLETE',
    });
  });

  it('reads older v4 NIC fields and a Secure Boot VM', () => {
    const vm = observedVmFromV4({ ...V4_VM, bootConfig: { $objectType: `${C}.UefiBoot`, isSecureBootEnabled: true }, nics: [{ networkInfo: { subnet: { extId: 'sub-2' } }, backingInfo: { isConnected: false } }] }, new Map());
    expect(vm.bootType).toBe('SECURE_BOOT');
    expect(vm.nics).toEqual([{ subnetUuid: 'sub-2' }]);
    expect(vm.ipAddresses).toEqual([]);
  });

  it('makes a VM that matches its desired VM diff as in sync, and an unnamed category as a difference', () => {
    const desired = desiredVm({ num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 4096, categories: { Environment: 'Prod' } });
    const v4 = { ...V4_VM, name: desired.name, description: desired.description, cluster: { extId: desired.clusterUuid }, disks: [], cdRoms: [], nics: [] };
    const named = new Map([[PROD, ['Environment', 'Prod'] as const]]);
    expect(diffVm(observedVmFromV4({ ...v4, categories: [{ extId: PROD }] }, named), desired).none).toBe(true);
    expect(diffVm(observedVmFromV4(v4, named), desired).hotPlug.map((c) => c.field)).toEqual(['categories']);
  });
});

describe('v4 bodies', () => {
  it('creates with the v4.2 SDK fields: cores per socket, bytes, image and subnet references, UEFI, categories, power, cloud-init', () => {
    const desired = desiredVm({ num_sockets: 2, num_vcpus_per_socket: 2, memory_size_mib: 2048, power_state: 'PoweredOn', boot_type: 'SECURE_BOOT', categories: { Environment: 'Prod' }, disks: [{ image: { uuid: 'img-1' }, size_mib: 10240 }], nics: [{ subnet: { uuid: 'sub-1' } }] });
    const body = v4CreateBody({ ...desired, cloudInitUserData: 'I2Nsb3VkLWNvbmZpZw==' }, extIdOf);
    expect(body).toMatchObject({
      name: desired.name,
      description: desired.description,
      cluster: { extId: desired.clusterUuid },
      numSockets: 2,
      numCoresPerSocket: 2,
      memorySizeBytes: 2048 * 1024 * 1024,
      powerState: 'ON',
      $bootConfigItemDiscriminator: `${C}.UefiBoot`,
      bootConfig: { $objectType: `${C}.UefiBoot`, isSecureBootEnabled: true },
      categories: [{ extId: PROD }],
      disks: [{ diskAddress: { busType: 'SCSI', index: 0 }, backingInfo: { diskSizeBytes: 10240 * 1024 * 1024, dataSource: { reference: { imageExtId: 'img-1' } } } }],
      nics: [{ nicNetworkInfo: { subnet: { extId: 'sub-1' } }, nicBackingInfo: { isConnected: true } }],
      guestCustomization: { config: { $objectType: `${C}.CloudInit`, cloudInitScript: { value: 'I2Nsb3VkLWNvbmZpZw==' } } },
    });
    expect(body).not.toHaveProperty('extId');
  });

  // CAPX v1.10.3 controllers/helpers.go addStorageConfigAndContainerToVmDisk: `VmDisk.StorageContainer` is a
  // `VmDiskContainerReference` whose extId is the container's `containerExtId`.
  it('creates a disk on its storage container and reads the container a disk is on', () => {
    const desired = desiredVm({ disks: [{ size_mib: 1024, storage_container: { uuid: 'sc-1' } }] });
    expect(v4CreateBody(desired, extIdOf).disks).toEqual([{
      $objectType: `${C}.Disk`,
      diskAddress: { $objectType: `${C}.DiskAddress`, busType: 'SCSI', index: 0 },
      $backingInfoItemDiscriminator: `${C}.VmDisk`,
      backingInfo: { $objectType: `${C}.VmDisk`, diskSizeBytes: 1024 * 1024 * 1024, storageContainer: { $objectType: `${C}.VmDiskContainerReference`, extId: 'sc-1' } },
    }]);
    const onContainer = { extId: 'd-2', backingInfo: { diskSizeBytes: 1024 ** 3, storageContainer: { extId: 'sc-1' } } };
    expect(observedVmFromV4({ ...V4_VM, disks: [onContainer] }, new Map()).disks).toEqual([{ id: 'd-2', sizeMib: 1024, storageContainerUuid: 'sc-1' }]);
  });

  it('updates the VM as read with the managed fields only; disks, NICs and power stay as read', () => {
    const desired = desiredVm({ num_sockets: 4, num_vcpus_per_socket: 2, memory_size_mib: 8192, boot_type: 'LEGACY', categories: { Environment: 'Prod' } });
    const body = v4UpdateBody(V4_VM, desired, extIdOf);
    expect(body).toMatchObject({ extId: V4_VM.extId, name: desired.name, numSockets: 4, numCoresPerSocket: 2, memorySizeBytes: 8192 * 1024 * 1024, powerState: 'ON', disks: V4_VM.disks, nics: V4_VM.nics, categories: [{ extId: PROD }] });
    expect(body.bootConfig).toEqual({ $objectType: `${C}.LegacyBoot` });
    expect(V4_VM.numSockets).toBe(2);
    expect(v4UpdateBody(V4_VM, desiredVm({ num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 4096 }), extIdOf).categories).toEqual(V4_VM.categories);
  });
});

describe('vmTaskFromV4', () => {
  it('reads status, errors and the VM a create made', () => {
    const task: PrismV4Task = {
      extId: 'ZXJnb24=:e074cb94-0000-4000-8000-000000000001',
      status: 'FAILED',
      operation: 'kVmCreate',
      errorMessages: [{ errorGroup: 'VM_ETAG_MISMATCH', message: 'moved' }],
      legacyErrorMessage: 'INTERNAL_ERROR: ErrorCode: 9',
      entitiesAffected: [{ extId: 'c-1', rel: 'clustermgmt:config:cluster' }, { extId: 'vm-1', rel: 'vmm:ahv:config:vm' }],
    };
    expect(vmTaskFromV4(task)).toEqual({ uuid: task.extId, status: 'FAILED', errorCode: 'VM_ETAG_MISMATCH', errorDetail: 'INTERNAL_ERROR: ErrorCode: 9', vmUuid: 'vm-1' });
    expect(vmTaskFromV4({ extId: 't', status: 'CANCELED' }).status).toBe('ABORTED');
  });
});
