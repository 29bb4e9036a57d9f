import { describe, expect, it } from 'vitest';
import { SUBNET_UUID, nic, prismVm } from '../../test/prism-vm-fixture.ts';
import { actualPowerState, ipAddressesOf, observedVmStatus } from './observed-vm.ts';

describe('observed VM facts', () => {
  it('mirrors uuid, state, power, addresses and spec_version into the status', () => {
    const vm = prismVm({ power: 'ON', nics: [nic(SUBNET_UUID, '10.0.0.5', 0), nic(SUBNET_UUID, '10.0.0.6', 1)], specVersion: 9 });
    expect(observedVmStatus(vm)).toEqual({
      uuid: vm.metadata.uuid,
      state: 'COMPLETE',
      powerState: 'ON',
      ipAddresses: ['10.0.0.5', '10.0.0.6'],
      specVersion: 9,
    });
  });

  it('includes learned addresses from status once, in NIC order', () => {
    const vm = prismVm({ nics: [nic(SUBNET_UUID, '10.0.0.5')] });
    const [statusNic] = vm.status.resources?.nic_list ?? [];
    statusNic?.ip_endpoint_list?.push({ ip: '192.168.20.7', type: 'LEARNED' }, { ip: '10.0.0.5', type: 'LEARNED' });
    expect(ipAddressesOf(vm)).toEqual(['10.0.0.5', '192.168.20.7']);
  });

  it('takes the power state from status while a change is pending, and treats anything else as OFF', () => {
    const vm = prismVm({ power: 'ON', state: 'PENDING' });
    vm.spec.resources.power_state = 'OFF';
    expect(actualPowerState(vm)).toBe('ON');
    const paused = prismVm();
    if (paused.status.resources) paused.status.resources.power_state = 'PAUSED';
    expect(actualPowerState(paused)).toBe('OFF');
    expect(observedVmStatus(paused).powerState).toBe('PAUSED');
  });
});
