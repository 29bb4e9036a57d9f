import { describe, expect, it } from 'vitest';
import { CLUSTER_UUID, EVERY_FIELD, IMAGE_UUID, OTHER_CLUSTER_UUID, OWNER_UID, STORAGE_CONTAINER_UUID, SUBNET_UUID, desiredVm, disk, nic, prismVm } from '../../../test/prism-vm-fixture.ts';
import { actualPowerState } from '../../vm/vm-model.ts';
import { observedVmFromV3, v3CreateBody, vmTaskFromV3 } from './v3-translation.ts';

describe('observedVmFromV3', () => {
  it('includes learned addresses from status once, in NIC order', () => {
    const vm = prismVm({ nics: [nic(SUBNET_UUID, '10.0.0.5')] });
    const [statusNic] = vm.status.resources?.nic_list ?? [];
    statusNic?.ip_endpoint_list?.push({ ip: '192.168.20.7', type: 'LEARNED' }, { ip: '10.0.0.5', type: 'LEARNED' });
    expect(observedVmFromV3(vm).ipAddresses).toEqual(['10.0.0.5', '192.168.20.7']);
  });

  it('takes the power state from status while a change is pending, and treats anything else as OFF', () => {
    const vm = prismVm({ power: 'ON', state: 'PENDING' });
    vm.spec.resources.power_state = 'OFF';
    expect(actualPowerState(observedVmFromV3(vm))).toBe('ON');
    const paused = prismVm();
    if (paused.status.resources) paused.status.resources.power_state = 'PAUSED';
    expect(actualPowerState(observedVmFromV3(paused))).toBe('OFF');
    expect(observedVmFromV3(paused).powerState).toBe('PAUSED');
  });

  it("says what Prism says about a VM's state", () => {
    const vm = prismVm({ state: 'ERROR' });
    vm.status.message_list = [{ message: 'hot plug failed' }, { reason: 'INTERNAL_ERROR' }];
    expect(observedVmFromV3(vm)).toMatchObject({ state: 'ERROR', stateMessages: ['hot plug failed', 'INTERNAL_ERROR'] });
  });
});

describe('v3CreateBody', () => {
  it('is the VM the seed operator created, plus the ownership marker', () => {
    expect(v3CreateBody(desiredVm({ num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 }))).toEqual({
      metadata: { kind: 'vm' },
      spec: {
        name: 'ahvvm-from-operator',
        description: `nutanix.com/ahvvm-owner-uid: ${OWNER_UID}`,
        cluster_reference: { kind: 'cluster', uuid: CLUSTER_UUID },
        resources: { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 },
      },
    });
  });

  it('maps every optional field to its v3 form, cloud-init included', () => {
    const desired = { ...desiredVm(EVERY_FIELD), cloudInitUserData: 'I2Nsb3VkLWNvbmZpZw==' };
    expect(v3CreateBody(desired)).toEqual({
      metadata: { kind: 'vm', categories: { Environment: 'Production' } },
      spec: {
        name: 'ahvvm-from-operator',
        description: `web tier\nnutanix.com/ahvvm-owner-uid: ${OWNER_UID}`,
        cluster_reference: { kind: 'cluster', uuid: OTHER_CLUSTER_UUID },
        resources: {
          num_sockets: 1,
          num_vcpus_per_socket: 1,
          memory_size_mib: 1024,
          power_state: 'ON',
          boot_config: { boot_type: 'UEFI' },
          disk_list: [{ data_source_reference: { kind: 'image', uuid: IMAGE_UUID }, disk_size_mib: 20480 }, { disk_size_mib: 1024 }],
          nic_list: [{ subnet_reference: { kind: 'subnet', uuid: SUBNET_UUID }, is_connected: true }],
          guest_customization: { cloud_init: { user_data: 'I2Nsb3VkLWNvbmZpZw==' } },
        },
      },
    });
  });
});

describe('storage containers on v3', () => {
  // The v3.1 swagger's `disk_storage_config.storage_container_reference`, which CAPX v1.7.0 (controllers/helpers.go
  // CreateDataDiskList) sends as {kind: storage_container, uuid} for a data disk's storageConfig.storageContainer.
  it('creates a disk on its storage container and reads the container a disk is on', () => {
    const desired = desiredVm({ disks: [{ size_mib: 1024, storage_container: { uuid: STORAGE_CONTAINER_UUID } }, { size_mib: 2048 }] });
    expect(v3CreateBody(desired).spec.resources.disk_list).toEqual([
      { disk_size_mib: 1024, storage_config: { storage_container_reference: { kind: 'storage_container', uuid: STORAGE_CONTAINER_UUID } } },
      { disk_size_mib: 2048 },
    ]);
    const onContainer = { ...disk(0, 1024), storage_config: { storage_container_reference: { kind: 'storage_container', name: 'fast', uuid: STORAGE_CONTAINER_UUID } } };
    expect(observedVmFromV3(prismVm({ disks: [onContainer] })).disks).toEqual([{ id: onContainer.uuid, sizeMib: 1024, storageContainerUuid: STORAGE_CONTAINER_UUID }]);
  });
});

describe('vmTaskFromV3', () => {
  it('reads status, error and the VM the task acted on', () => {
    expect(vmTaskFromV3({ uuid: 't-1', status: 'FAILED', error_code: '27', error_detail: 'no hot plug', entity_reference_list: [{ kind: 'vm', uuid: 'vm-1' }] })).toEqual({
      uuid: 't-1',
      status: 'FAILED',
      errorCode: '27',
      errorDetail: 'no hot plug',
      vmUuid: 'vm-1',
    });
  });
});
