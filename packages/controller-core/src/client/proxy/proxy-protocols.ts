/**
 * What undici's ProxyAgent tunnels through and this client is tested with. client-go also takes socks5 proxies; a
 * socks5 proxy is refused with a message rather than used untested.
 */
const SUPPORTED_PROXY_PROTOCOLS = ['http:', 'https:'];

/** The proxy URL, or an error naming `where` it came from when this client cannot use it. */
export function checkProxyProtocol(proxy: URL, where: string): URL {
  if (!SUPPORTED_PROXY_PROTOCOLS.includes(proxy.protocol)) {
    throw new Error(`${where} names a proxy with scheme "${proxy.protocol.replace(/:$/, '')}"; controller-core reaches the API server through http:// or https:// proxies only`);
  }
  return proxy;
}
