import { describe, expect, it } from 'vitest';
import { hotplugViolations } from './hotplug-rules.ts';

const running = { num_sockets: 2, num_vcpus_per_socket: 2, memory_size_mib: 4096 };

describe('hotplugViolations', () => {
  it('allows hot-adding sockets and memory, in any increment', () => {
    expect(hotplugViolations(running, { ...running, num_sockets: 4, memory_size_mib: 4096 + 512 })).toEqual([]);
    expect(hotplugViolations(running, running)).toEqual([]);
  });

  it('refuses fewer sockets, less memory and any change of vCPUs per socket', () => {
    expect(hotplugViolations(running, { ...running, num_sockets: 1 }).map((v) => v.field)).toEqual(['num_sockets']);
    expect(hotplugViolations(running, { ...running, memory_size_mib: 2048 }).map((v) => v.field)).toEqual(['memory_size_mib']);
    expect(hotplugViolations(running, { ...running, num_vcpus_per_socket: 4 }).map((v) => v.field)).toEqual(['num_vcpus_per_socket']);
    expect(hotplugViolations(running, { ...running, num_vcpus_per_socket: 1 }).map((v) => v.field)).toEqual(['num_vcpus_per_socket']);
  });

  it('reports every violation with a NotSupported detail naming the values', () => {
    const violations = hotplugViolations(running, { num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024 });
    expect(violations.map((v) => v.field)).toEqual(['num_sockets', 'num_vcpus_per_socket', 'memory_size_mib']);
    expect(violations[0]?.detail).toMatch(/^NotSupported: .*num_sockets 2 -> 1.*powered on/);
  });
});
