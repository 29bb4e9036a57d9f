import type { Cluster, User } from '@kubernetes/client-node';
import { KubeConfigAuth } from '../kubeconfig-auth.ts';
import type { ClusterAuth } from './cluster-auth.ts';
import type { ClusterSettings } from './cluster-entry.ts';
import { impersonationHeaders } from './impersonation-headers.ts';
import type { UserSettings } from './user-entry.ts';

/** The auth-provider plugins client-node implements (client-go itself keeps only oidc). */
const CLIENT_NODE_AUTH_PROVIDERS = ['oidc', 'gcp', 'azure'];

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
  const auth = await KubeConfigAuth.load(kubeConfig);
  // client-node sends only `as`; every impersonation field is added here instead.
  const impersonation = user.impersonation === undefined ? {} : impersonationHeaders(user.impersonation);
  return {
    server: auth.server,
    proxy,
    get tls() {
      return auth.tls;
    },
    async headers() {
      return { ...(await auth.headers()), ...impersonation };
    },
    refresh: () => auth.refresh(),
  };
}
