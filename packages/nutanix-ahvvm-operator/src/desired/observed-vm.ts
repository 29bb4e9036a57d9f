import type { PrismPowerState, PrismVm } from '../prism/prism-types.ts';

/**
 * Facts read off a VM as Prism shows it. `status` is what was last applied and `spec` the latest accepted intent;
 * where they can differ (while a task runs) the power state comes from `status`, because it decides what can change
 * live.
 */

/** The power state the VM is in: status first, then spec; a VM Prism reports as neither is treated as OFF. */
export function actualPowerState(vm: PrismVm): PrismPowerState {
  const state = vm.status.resources?.power_state ?? vm.spec.resources.power_state;
  return state === 'ON' ? 'ON' : 'OFF';
}

/** Prism states in which a task is still changing the VM; nothing else should be sent until they end. */
export const BUSY_VM_STATES: readonly string[] = ['PENDING', 'RUNNING', 'DELETE_PENDING'];

/** IP addresses of the VM's NICs in NIC order, assigned and learned, without repeats. */
export function ipAddressesOf(vm: PrismVm): string[] {
  const nics = vm.status.resources?.nic_list ?? vm.spec.resources.nic_list ?? [];
  const addresses = nics.flatMap((nic) => (nic.ip_endpoint_list ?? []).map((endpoint) => endpoint.ip));
  return [...new Set(addresses.filter((ip) => typeof ip === 'string' && ip !== ''))];
}

/** The AhvVm status fields that mirror the VM. */
export interface ObservedVmStatus {
  uuid: string;
  state: string;
  powerState: string;
  ipAddresses: string[];
  /** v3 only; undefined on v4 (which removes it from status). */
  specVersion: number | undefined;
}

export function observedVmStatus(vm: PrismVm): ObservedVmStatus {
  return {
    uuid: vm.metadata.uuid,
    state: vm.status.state,
    powerState: vm.status.resources?.power_state ?? vm.spec.resources.power_state ?? 'UNKNOWN',
    ipAddresses: ipAddressesOf(vm),
    specVersion: vm.metadata.spec_version,
  };
}
