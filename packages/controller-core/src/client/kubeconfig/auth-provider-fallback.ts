import type { RequestOptions } from 'node:https';
import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';
import type { AuthHeaders, ClusterAuth, ClusterTls } from './cluster-auth.ts';
import type { ClusterSettings } from './cluster-entry.ts';
import { impersonationHeaders } from './impersonation-headers.ts';
import type { UserSettings } from './user-entry.ts';

/** The auth-provider plugins client-node implements (client-go itself keeps only oidc). */
const CLIENT_NODE_AUTH_PROVIDERS = ['oidc', 'gcp', 'azure'];

/**
 * How often headers are rebuilt through client-node, which refreshes an expired provider token (OIDC refresh grant,
 * gcloud/az) and re-reads token files when asked. A 401 rebuilds them at once.
 */
const HEADER_REFRESH_MS = 60_000;

/**
 * A user with an `auth-provider` goes through client-node, which implements these providers' token refresh (OIDC
 * refresh-token grants, gcloud/az command output). client-node is imported here only: it costs 55-75 MiB of RSS, paid
 * by the few operators whose kubeconfig uses such a provider, not by the ones in a cluster or with certificates,
 * tokens or exec plugins.
 */
export async function authProviderClusterAuth(contextName: string, cluster: ClusterSettings, user: UserSettings, proxy: URL | undefined): Promise<ClusterAuth> {
  const provider = user.authProvider;
  if (provider === undefined) throw new Error(`${user.description} has no auth-provider`);
  if (!CLIENT_NODE_AUTH_PROVIDERS.includes(provider.name)) {
    throw new Error(`${user.description} uses auth-provider ${provider.name}, which is not supported (${CLIENT_NODE_AUTH_PROVIDERS.join(', ')} are): use an exec plugin`);
  }
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfig();
  const clientNodeCluster: Cluster = {
    name: cluster.name,
    server: cluster.server,
    skipTLSVerify: false,
    ...(cluster.certificateAuthority === undefined
      ? {}
      : 'file' in cluster.certificateAuthority
        ? { caFile: cluster.certificateAuthority.file }
        : { caData: cluster.certificateAuthority.base64 }),
    ...(cluster.tlsServerName === undefined ? {} : { tlsServerName: cluster.tlsServerName }),
  };
  const clientNodeUser: User = {
    name: user.name,
    // A copy: client-node writes refreshed tokens into it.
    authProvider: { name: provider.name, config: { ...provider.config } },
    ...(user.clientCertificate === undefined ? {} : 'file' in user.clientCertificate ? { certFile: user.clientCertificate.file } : { certData: user.clientCertificate.base64 }),
    ...(user.clientKey === undefined ? {} : 'file' in user.clientKey ? { keyFile: user.clientKey.file } : { keyData: user.clientKey.base64 }),
    ...(user.token === undefined ? {} : { token: user.token }),
    ...(user.basic === undefined ? {} : { username: user.basic.username, password: user.basic.password }),
  };
  kubeConfig.loadFromOptions({
    clusters: [clientNodeCluster],
    users: [clientNodeUser],
    contexts: [{ name: contextName, cluster: cluster.name, user: user.name }],
    currentContext: contextName,
  });
  // client-node sends only `as`; every impersonation field is added here instead.
  return clientNodeClusterAuth(kubeConfig, proxy, user.impersonation === undefined ? {} : impersonationHeaders(user.impersonation));
}

/** The current context of the KubeConfig built above, its credentials read through client-node; `extraHeaders` on top. */
async function clientNodeClusterAuth(kubeConfig: KubeConfig, proxy: URL | undefined, extraHeaders: AuthHeaders): Promise<ClusterAuth> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster (check current-context)');
  const options = await applied(kubeConfig);
  const tls: ClusterTls = { ca: asBuffer(options.ca), cert: asBuffer(options.cert), key: asBuffer(options.key), servername: options.servername ?? undefined };
  let headers = headersOf(options);
  let headersAt = Date.now();
  const refresh = async (): Promise<void> => {
    headers = headersOf(await applied(kubeConfig));
    headersAt = Date.now();
  };
  return {
    server: cluster.server.replace(/\/+$/, ''),
    proxy,
    tls,
    async headers() {
      if (Date.now() - headersAt >= HEADER_REFRESH_MS) await refresh();
      return { ...headers, ...extraHeaders };
    },
    refresh,
  };
}

async function applied(kubeConfig: KubeConfig): Promise<RequestOptions> {
  const options: RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  return options;
}

function headersOf(options: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
    else if (typeof value === 'number') headers[name.toLowerCase()] = String(value);
  }
  // client-node puts basic-auth credentials in `auth` (an https.request option), not in a header.
  if (typeof options.auth === 'string' && options.auth !== '') {
    headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
  }
  return headers;
}

function asBuffer(value: unknown): Buffer | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value);
  throw new Error('kubeconfig: expected PEM data for the CA, client certificate or key');
}
