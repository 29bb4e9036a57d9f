import { isIPv4, isIPv6 } from 'node:net';

/**
 * An IP address as Go's net.IP compares it: 4 bytes for IPv4 and IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what Go's `To4`
 * gives), 16 bytes for other IPv6 addresses. Zones (`%eth0`) are not addresses here, as in Go's net.ParseIP.
 */
export type IpBytes = readonly number[];

export function parseIp(text: string): IpBytes | undefined {
  if (isIPv4(text)) return text.split('.').map(Number);
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const bytes = ipv6Bytes(text);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

/** 127.0.0.0/8 and ::1, as Go's IP.IsLoopback. */
export function isLoopback(ip: IpBytes): boolean {
  return ip.length === 4 ? ip[0] === 127 : ip.every((b, i) => b === (i === 15 ? 1 : 0));
}

export interface IpNetwork {
  readonly ip: IpBytes;
  readonly prefixBits: number;
}

/** `10.0.0.0/8` or `2001:db8::/32`, as Go's net.ParseCIDR accepts them; undefined for anything else. */
export function parseCidr(text: string): IpNetwork | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  if (!/^\d+$/.test(bits)) return undefined;
  const prefixBits = Number(bits);
  if (isIPv4(address)) return prefixBits <= 32 ? { ip: address.split('.').map(Number), prefixBits } : undefined;
  if (!isIPv6(address) || address.includes('%') || prefixBits > 128) return undefined;
  return { ip: ipv6Bytes(address), prefixBits };
}

/** Go's IPNet.Contains: an IPv4 address is only in an IPv4 network, an IPv6 address only in an IPv6 one. */
export function networkContains(network: IpNetwork, ip: IpBytes): boolean {
  if (network.ip.length !== ip.length) return false;
  for (let bit = 0; bit < network.prefixBits; bit++) {
    const mask = 0x80 >> (bit % 8);
    const byte = Math.floor(bit / 8);
    if (((network.ip[byte] ?? 0) & mask) !== ((ip[byte] ?? 0) & mask)) return false;
  }
  return true;
}

export function sameIp(a: IpBytes, b: IpBytes): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** The 16 bytes of an address node:net already judged to be IPv6 (`::` shorthand, a trailing dotted IPv4 part). */
function ipv6Bytes(text: string): number[] {
  let groups = text;
  let tail: number[] = [];
  const lastColon = groups.lastIndexOf(':');
  if (groups.includes('.', lastColon)) {
    tail = groups.slice(lastColon + 1).split('.').map(Number);
    groups = `${groups.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = groups.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const headWords = parse(head);
  const restWords = rest === undefined ? [] : parse(rest);
  const words = [...headWords, ...new Array<number>(8 - headWords.length - restWords.length).fill(0), ...restWords];
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}
