import type { Dispatcher } from 'undici';
import type { ClusterTls } from './kubeconfig/cluster-auth.ts';
import { Agent, ProxyAgent } from './undici-parts.ts';

/** The keep-alive settings of every pool to the API server. */
const POOL_OPTIONS = {
  // HTTP/1.1: every watch has its own connection, so one dead connection stalls one watch (which its watchdog
  // restarts), not every request multiplexed on a shared HTTP/2 session. It also sends a list-valued header
  // (Impersonate-Group) as one line per value, which the API server needs; undici's HTTP/2 joins them with commas.
  allowH2: false,
  keepAliveTimeout: 30_000,
} as const;

/**
 * One keep-alive pool to the API server, verifying its certificate against the configured CA (or Node's). Through a
 * proxy, each connection is a CONNECT tunnel, and TLS with the API server runs inside it end to end with the same
 * verification: the proxy sees only encrypted bytes. An https proxy's own certificate is verified against Node's CAs
 * (NODE_EXTRA_CA_CERTS adds to them); credentials in the proxy URL are sent as Proxy-Authorization, to the proxy only.
 */
export function connectionPool(tls: ClusterTls, proxy: URL | undefined): Dispatcher {
  const serverTls = {
    // Only what the configuration gives: an explicit `ca: undefined` would replace Node's default CAs with none.
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
    ...(tls.servername === undefined ? {} : { servername: tls.servername }),
    rejectUnauthorized: true,
  };
  if (proxy === undefined) return new Agent({ connect: serverTls, ...POOL_OPTIONS });
  return new ProxyAgent({ uri: proxy.href, requestTls: serverTls, proxyTls: { rejectUnauthorized: true }, ...POOL_OPTIONS });
}
