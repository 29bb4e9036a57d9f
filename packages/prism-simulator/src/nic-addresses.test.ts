import { describe, expect, it } from 'vitest';
import { allocateIpv4, formatIpv4, isInRange, newMacAddress, parseCidr } from './nic-addresses.ts';

describe('IPv4 ranges', () => {
  it('skips the network, gateway and broadcast addresses', () => {
    const range = parseCidr('10.40.10.0/24');
    expect(formatIpv4(range.first)).toBe('10.40.10.2');
    expect(formatIpv4(range.last)).toBe('10.40.10.254');
    expect(formatIpv4(parseCidr('10.40.10.77/24').first)).toBe('10.40.10.2');
  });

  it.each(['10.40.10.0', '10.40.10.0/31', '300.1.1.1/24', 'x/24', '10.0.0.0/4'])('rejects %s', (cidr) => {
    expect(() => parseCidr(cidr)).toThrow(/not an IPv4 CIDR/);
  });

  it('allocates the lowest free address and reports exhaustion', () => {
    const range = parseCidr('192.168.1.0/29');
    expect(allocateIpv4(range, new Set())).toBe('192.168.1.2');
    expect(allocateIpv4(range, new Set(['192.168.1.2', '192.168.1.3']))).toBe('192.168.1.4');
    expect(allocateIpv4(range, new Set(['192.168.1.2', '192.168.1.3', '192.168.1.4', '192.168.1.5', '192.168.1.6']))).toBeUndefined();
  });

  it('tells whether an address is in the usable range', () => {
    const range = parseCidr('10.0.0.0/24');
    expect(isInRange('10.0.0.9', range)).toBe(true);
    expect(isInRange('10.0.0.1', range)).toBe(false);
    expect(isInRange('10.0.1.9', range)).toBe(false);
    expect(isInRange('not-an-ip', range)).toBe(false);
  });
});

describe('newMacAddress', () => {
  it('uses the Nutanix OUI and avoids addresses in use', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const mac = newMacAddress(taken);
      expect(mac).toMatch(/^50:6b:8d(:[0-9a-f]{2}){3}$/);
      expect(taken.has(mac)).toBe(false);
      taken.add(mac);
    }
  });
});
