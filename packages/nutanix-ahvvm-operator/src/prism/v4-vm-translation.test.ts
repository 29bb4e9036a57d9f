import { describe, expect, it } from 'vitest';
import { desiredIntent } from '../../test/prism-vm-fixture.ts';
import { diffVm } from '../desired/vm-diff.ts';
import type { PrismV4Task, PrismV4Vm } from './prism-v4-client.ts';
import { prismTaskFromV4, prismVmFromV4, UNNAMED_CATEGORY_PREFIX, v4CreateBody, v4UpdateBody, vmUuidOfTask } from './v4-vm-translation.ts';

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

describe('prismVmFromV4', () => {
  it('reads a v4 VM in the v3 shape the diff and the status use', () => {
    const vm = prismVmFromV4(V4_VM, new Map([[PROD, ['Environment', 'Prod'] as const]]));
    expect(vm.metadata).toEqual({ kind: 'vm', uuid: V4_VM.extId, categories: { Environment: 'Prod', [`${UNNAMED_CATEGORY_PREFIX}aaaaaaaa-0000-5000-8000-000000000009`]: '' } });
    expect(vm.spec).toMatchObject({ name: 'web-01', description: V4_VM.description, cluster_reference: { uuid: V4_VM.cluster?.extId } });
    expect(vm.spec.resources).toMatchObject({ num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 4096, power_state: 'ON', boot_config: { boot_type: 'UEFI' } });
    expect(vm.spec.resources.disk_list).toEqual([
      { uuid: 'd-1', device_properties: { device_type: 'DISK', disk_address: { adapter_type: 'SCSI', device_index: 0 } }, disk_size_bytes: 20 * 1024 ** 3, disk_size_mib: 20480, data_source_reference: { kind: 'image', uuid: 'img-1' } },
      { uuid: 'cd-1', device_properties: { device_type: 'CDROM', disk_address: { adapter_type: 'IDE', device_index: 0 } } },
    ]);
    expect(vm.spec.resources.nic_list?.[0]).toMatchObject({ subnet_reference: { uuid: 'sub-1' }, ip_endpoint_list: [{ ip: '10.0.0.5' }, { ip: '10.0.0.6' }], is_connected: true });
    expect(vm.status).toMatchObject({ state: 'COMPLETE', resources: { power_state: 'ON' } });
  });

  it('reads older v4 NIC fields and a Secure Boot VM', () => {
    const vm = prismVmFromV4({ ...V4_VM, bootConfig: { $objectType: `${C}.UefiBoot`, isSecureBootEnabled: true }, nics: [{ networkInfo: { subnet: { extId: 'sub-2' } }, backingInfo: { isConnected: false } }] }, new Map());
    expect(vm.spec.resources.boot_config?.boot_type).toBe('SECURE_BOOT');
    expect(vm.spec.resources.nic_list).toEqual([{ subnet_reference: { kind: 'subnet', uuid: 'sub-2' }, ip_endpoint_list: [], is_connected: false }]);
  });

  it('makes a VM that matches its intent diff as in sync, and an unnamed category as a difference', () => {
    const desired = desiredIntent({ num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 4096, categories: { Environment: 'Prod' } });
    const v4 = { ...V4_VM, name: desired.spec.name, description: desired.spec.description, cluster: { extId: desired.spec.cluster_reference?.uuid ?? '' }, disks: [], cdRoms: [], nics: [] };
    const named = new Map([[PROD, ['Environment', 'Prod'] as const]]);
    expect(diffVm(prismVmFromV4({ ...v4, categories: [{ extId: PROD }] }, named), desired).none).toBe(true);
    expect(diffVm(prismVmFromV4(v4, named), desired).hotPlug.map((c) => c.field)).toEqual(['categories']);
  });
});

describe('v4 bodies', () => {
  it('creates with the v4.2 SDK fields: cores per socket, bytes, image and subnet references, UEFI, categories, power, cloud-init', () => {
    const intent = desiredIntent({ num_sockets: 2, num_vcpus_per_socket: 2, memory_size_mib: 2048, power_state: 'PoweredOn', boot_type: 'SECURE_BOOT', categories: { Environment: 'Prod' }, disks: [{ image: { uuid: 'img-1' }, size_mib: 10240 }], nics: [{ subnet: { uuid: 'sub-1' } }] });
    intent.spec.resources.guest_customization = { cloud_init: { user_data: 'I2Nsb3VkLWNvbmZpZw==' } };
    const body = v4CreateBody(intent, extIdOf);
    expect(body).toMatchObject({
      name: intent.spec.name,
      description: intent.spec.description,
      cluster: { extId: intent.spec.cluster_reference?.uuid },
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

  it('updates the VM as read with the managed fields only; disks, NICs and power stay as read', () => {
    const desired = desiredIntent({ num_sockets: 4, num_vcpus_per_socket: 2, memory_size_mib: 8192, boot_type: 'LEGACY', categories: { Environment: 'Prod' } });
    const body = v4UpdateBody(V4_VM, desired, extIdOf);
    expect(body).toMatchObject({ extId: V4_VM.extId, name: desired.spec.name, numSockets: 4, numCoresPerSocket: 2, memorySizeBytes: 8192 * 1024 * 1024, powerState: 'ON', disks: V4_VM.disks, nics: V4_VM.nics, categories: [{ extId: PROD }] });
    expect(body.bootConfig).toEqual({ $objectType: `${C}.LegacyBoot` });
    expect(V4_VM.numSockets).toBe(2);
    expect(v4UpdateBody(V4_VM, desiredIntent({ num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 4096 }), extIdOf).categories).toEqual(V4_VM.categories);
  });
});

describe('prismTaskFromV4', () => {
  it('reads status, errors and the VM a create made', () => {
    const task: PrismV4Task = {
      extId: 'ZXJnb24=:e074cb94-0000-4000-8000-000000000001',
      status: 'FAILED',
      operation: 'kVmCreate',
      errorMessages: [{ errorGroup: 'VM_ETAG_MISMATCH', message: 'moved' }],
      legacyErrorMessage: 'INTERNAL_ERROR: ErrorCode: 9',
      entitiesAffected: [{ extId: 'c-1', rel: 'clustermgmt:config:cluster' }, { extId: 'vm-1', rel: 'vmm:ahv:config:vm' }],
    };
    const translated = prismTaskFromV4(task);
    expect(translated).toMatchObject({ uuid: task.extId, status: 'FAILED', error_code: 'VM_ETAG_MISMATCH', error_detail: 'INTERNAL_ERROR: ErrorCode: 9' });
    expect(vmUuidOfTask(translated)).toBe('vm-1');
    expect(prismTaskFromV4({ extId: 't', status: 'CANCELED' }).status).toBe('ABORTED');
  });
});
