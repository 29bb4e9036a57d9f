import { AHVVM_SPEC_DEFAULTS, DEFAULT_USER_DATA_KEY } from './ahvvm-limits.ts';
import type { AhvVmSpec } from './ahvvm-resource.ts';

/** An AhvVm's spec with every default applied: what the controller and the desired VM read, never the raw spec. */
export type ResolvedAhvVmSpec = Omit<AhvVmSpec, 'num_sockets' | 'num_vcpus_per_socket' | 'memory_size_mib' | 'allow_power_cycle' | 'deletion_policy' | 'cloud_init'> & {
  num_sockets: number;
  num_vcpus_per_socket: number;
  memory_size_mib: number;
  allow_power_cycle: boolean;
  deletion_policy: 'Delete' | 'Retain';
  cloud_init?: { user_data_secret_ref: { name: string; key: string } };
};

/**
 * Applies the AhvVm's defaults once, at the start of a reconcile. The API server applies the same defaults from the
 * CRD's schema when an object is stored; this covers objects stored before a default existed, and objects built in
 * tests, so no other code has a default of its own to keep in step.
 */
export function resolveAhvVmSpec(spec: AhvVmSpec): ResolvedAhvVmSpec {
  const { cloud_init: cloudInit, ...rest } = spec;
  return {
    ...rest,
    num_sockets: spec.num_sockets ?? AHVVM_SPEC_DEFAULTS.numSockets,
    num_vcpus_per_socket: spec.num_vcpus_per_socket ?? AHVVM_SPEC_DEFAULTS.numVcpusPerSocket,
    memory_size_mib: spec.memory_size_mib ?? AHVVM_SPEC_DEFAULTS.memorySizeMib,
    allow_power_cycle: spec.allow_power_cycle ?? false,
    deletion_policy: spec.deletion_policy ?? 'Delete',
    ...(cloudInit === undefined
      ? {}
      : { cloud_init: { user_data_secret_ref: { name: cloudInit.user_data_secret_ref.name, key: cloudInit.user_data_secret_ref.key ?? DEFAULT_USER_DATA_KEY } } }),
  };
}
