import { describe, expect, it } from 'vitest';
import { SUBNET_UUID, nic, observedVm } from '../../test/prism-vm-fixture.ts';
import { observedVmStatus } from './observed-vm-status.ts';

describe('observedVmStatus', () => {
  it('mirrors uuid, state, power, addresses and spec_version into the status', () => {
    const vm = observedVm({ power: 'ON', nics: [nic(SUBNET_UUID, '10.0.0.5', 0), nic(SUBNET_UUID, '10.0.0.6', 1)], specVersion: 9 });
    expect(observedVmStatus(vm)).toEqual({
      uuid: vm.uuid,
      state: 'COMPLETE',
      powerState: 'ON',
      ipAddresses: ['10.0.0.5', '10.0.0.6'],
      specVersion: 9,
    });
  });
});
