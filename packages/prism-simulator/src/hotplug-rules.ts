// What AHV refuses to change on a running VM (from the Terraform provider and the Ansible
// modules, which both power the VM off first): fewer sockets, less memory, or a different number of vCPUs
// per socket. More sockets and more memory are hot-added.
//
// The rules are checked whenever the VM is ON when the update runs, even if the same PUT also asks for
// power OFF: whether Prism would power off first and then apply the change is unverified, and every known
// client sends the power-off as its own PUT. Memory increases are not forced to 1 GiB steps: the docs say
// hot-add "should only be done in 1GB increments", which reads as advice, not as a rule the API enforces.

export interface CpuAndMemory {
  num_sockets: number;
  num_vcpus_per_socket: number;
  memory_size_mib: number;
}

export interface HotplugViolation {
  field: keyof CpuAndMemory;
  /** The task's error_detail, in the `NotSupported: ...` style of real Acropolis errors. */
  detail: string;
}

/** Acropolis' NotSupported error code, as seen in a real failed update (TF issue #131). */
export const NOT_SUPPORTED_ERROR_CODE = '27';

/** Returns why `desired` cannot be applied to a VM that is powered on with `current`; empty when it can. */
export function hotplugViolations(current: CpuAndMemory, desired: CpuAndMemory): HotplugViolation[] {
  const violations: HotplugViolation[] = [];
  const poweredOn = "while the VM is powered on (current power state is 'kOn'); power the VM off first";
  if (desired.num_sockets < current.num_sockets) {
    violations.push({ field: 'num_sockets', detail: `NotSupported: Cannot hot-remove vCPU sockets (num_sockets ${current.num_sockets} -> ${desired.num_sockets}) ${poweredOn}` });
  }
  if (desired.num_vcpus_per_socket !== current.num_vcpus_per_socket) {
    violations.push({ field: 'num_vcpus_per_socket', detail: `NotSupported: Cannot change num_vcpus_per_socket (${current.num_vcpus_per_socket} -> ${desired.num_vcpus_per_socket}) ${poweredOn}` });
  }
  if (desired.memory_size_mib < current.memory_size_mib) {
    violations.push({ field: 'memory_size_mib', detail: `NotSupported: Cannot hot-remove memory (memory_size_mib ${current.memory_size_mib} -> ${desired.memory_size_mib}) ${poweredOn}` });
  }
  return violations;
}
