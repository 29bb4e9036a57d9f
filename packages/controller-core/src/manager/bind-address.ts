/**
 * Parses controller-runtime style bind addresses: `:8081` (all interfaces), `127.0.0.1:8081`, `:0` (a random port,
 * for tests), `0` (disabled).
 */
export function parseBindAddress(address: string): { host: string; port: number } | undefined {
  if (address === '0' || address === '') return undefined;
  const colon = address.lastIndexOf(':');
  const host = colon > 0 ? address.slice(0, colon) : '0.0.0.0';
  const port = Number(address.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`invalid bind address "${address}": expected [host]:port, or 0 to disable`);
  return { host, port };
}
