import { describe, expect, it } from 'vitest';
import { crdManifest } from '@k8s-operators/controller-core';
import { AhvVmResource } from './ahvvm-resource.ts';
import { resolveAhvVmSpec } from './resolved-ahvvm-spec.ts';

describe('resolveAhvVmSpec', () => {
  it('gives a spec that leaves everything out the seed operator\'s sizes, Delete, no power cycle and no cloud-init', () => {
    expect(resolveAhvVmSpec({})).toEqual({ num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024, allow_power_cycle: false, deletion_policy: 'Delete' });
  });

  it('keeps every value that is given, and reads cloud-init user data from the key "userdata" unless one is named', () => {
    const given = {
      num_sockets: 4, num_vcpus_per_socket: 2, memory_size_mib: 8192, allow_power_cycle: true, deletion_policy: 'Retain' as const,
      description: 'db', power_state: 'PoweredOff' as const, cluster: { name: 'c1' }, categories: { env: 'prod' },
      disks: [{ image: { name: 'ubuntu' } }], nics: [{ subnet: { uuid: 'b2e46975-0b1d-4c3e-8f5a-6b7c8d9e0f01' } }], boot_type: 'UEFI' as const,
    };
    expect(resolveAhvVmSpec(given)).toEqual(given);
    expect(resolveAhvVmSpec({ cloud_init: { user_data_secret_ref: { name: 'init' } } }).cloud_init).toEqual({ user_data_secret_ref: { name: 'init', key: 'userdata' } });
    expect(resolveAhvVmSpec({ cloud_init: { user_data_secret_ref: { name: 'init', key: 'cfg' } } }).cloud_init).toEqual({ user_data_secret_ref: { name: 'init', key: 'cfg' } });
  });

  it('applies the defaults the installed CRD declares, so a stored object and an object built in a test read alike', () => {
    const served = crdManifest(AhvVmResource).spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties ?? {};
    const resolved = resolveAhvVmSpec({ cloud_init: { user_data_secret_ref: { name: 'init' } } });
    for (const field of ['num_sockets', 'num_vcpus_per_socket', 'memory_size_mib', 'allow_power_cycle', 'deletion_policy'] as const) {
      expect(resolved[field], field).toBe(served[field]?.default);
    }
    expect(resolved.cloud_init?.user_data_secret_ref.key).toBe(served.cloud_init?.properties?.user_data_secret_ref?.properties?.key?.default);
  });
});
