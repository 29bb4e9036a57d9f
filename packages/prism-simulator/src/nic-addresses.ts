// Addresses the server hands out to NICs: MAC addresses in Nutanix' OUI (the recorded GET shows
// 50:6b:8d:...), and IPv4 addresses from a subnet's range, skipping the network, gateway and broadcast
// addresses and everything already in use.

import { randomBytes } from 'node:crypto';

export interface Ipv4Range {
  /** First usable host address as a 32-bit number. */
  first: number;
  /** Last usable host address. */
  last: number;
}

/** Parses `a.b.c.d/n`; throws on anything else so that bad seeds fail at start-up. */
export function parseCidr(cidr: string): Ipv4Range {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  const octets = match?.slice(1, 5).map(Number) ?? [];
  const prefix = Number(match?.[5]);
  if (!match || octets.some((o) => o > 255) || prefix > 30 || prefix < 8) throw new Error(`'${cidr}' is not an IPv4 CIDR between /8 and /30`);
  const address = octets.reduce((acc, octet) => acc * 256 + octet, 0);
  const size = 2 ** (32 - prefix);
  const network = address - (address % size);
  // .1 is the gateway by convention on AHV IPAM subnets; the last address is the broadcast.
  return { first: network + 2, last: network + size - 2 };
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export function isInRange(ip: string, range: Ipv4Range): boolean {
  const octets = ip.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return false;
  const value = octets.reduce((acc, octet) => acc * 256 + octet, 0);
  return value >= range.first && value <= range.last;
}

/** The lowest free address of the range, or undefined when the range is exhausted. */
export function allocateIpv4(range: Ipv4Range, inUse: ReadonlySet<string>): string | undefined {
  for (let value = range.first; value <= range.last; value += 1) {
    const ip = formatIpv4(value);
    if (!inUse.has(ip)) return ip;
  }
  return undefined;
}

export function newMacAddress(inUse: ReadonlySet<string>): string {
  for (;;) {
    const mac = ['50', '6b', '8d', ...[...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0'))].join(':');
    if (!inUse.has(mac)) return mac;
  }
}
