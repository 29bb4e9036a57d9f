import type { ObservedVm } from '../vm/vm-model.ts';

/** The AhvVm status fields that mirror the VM. */
export interface ObservedVmStatus {
  uuid: string;
  state: string;
  powerState: string;
  ipAddresses: string[];
  /** v3 only; undefined on v4 (which removes it from status). */
  specVersion: number | undefined;
}

export function observedVmStatus(vm: ObservedVm): ObservedVmStatus {
  return { uuid: vm.uuid, state: vm.state, powerState: vm.powerState, ipAddresses: vm.ipAddresses, specVersion: vm.specVersion };
}
