import { environmentProxy } from '../proxy/environment-proxy.ts';
import { authProviderClusterAuth } from './auth-provider-fallback.ts';
import type { AuthHeaders, ClusterAuth, ClusterTls } from './cluster-auth.ts';
import { clusterSettings, type ClusterSettings } from './cluster-entry.ts';
import { CredentialsAuth } from './credentials-auth.ts';
import { ExecCredentials } from './exec-credentials.ts';
import type { ExecClusterInfo } from './exec-plugin.ts';
import { impersonationHeaders } from './impersonation-headers.ts';
import { checkCertificateAuthority, checkClientCertificate, readPem } from './pem-material.ts';
import type { SelectedContext } from './select-context.ts';
import { TokenFile } from './token-file.ts';
import { userSettings, type UserSettings } from './user-entry.ts';

export interface KubeconfigAuthOptions {
  /** The environment exec plugins' `env` is merged over, and HTTPS_PROXY and NO_PROXY are read from. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly execTimeoutMs: number;
}

/** The ClusterAuth of a kubeconfig context: its cluster's server and CA, its user's credentials. */
export async function kubeconfigClusterAuth(selected: SelectedContext, options: KubeconfigAuthOptions): Promise<ClusterAuth> {
  const cluster = clusterSettings(selected.cluster);
  const user = userSettings(selected.user);
  const proxy = cluster.proxyUrl ?? environmentProxy(options.environment, new URL(cluster.server));
  if (user.authProvider !== undefined) return authProviderClusterAuth(selected.context.name, cluster, user, proxy);
  const tls = await clusterTls(cluster, user);
  const fixedHeaders: AuthHeaders = {
    ...(user.basic === undefined ? {} : { authorization: `Basic ${Buffer.from(`${user.basic.username}:${user.basic.password}`).toString('base64')}` }),
    // With a tokenFile the token is only the fallback for an unreadable file (TokenFile).
    ...(user.token === undefined || user.tokenFile !== undefined ? {} : { authorization: `Bearer ${user.token}` }),
    ...(user.impersonation === undefined ? {} : impersonationHeaders(user.impersonation)),
  };
  const tokenFile = user.tokenFile === undefined ? undefined : await TokenFile.open(user.tokenFile, `${user.description}: tokenFile`, user.token);
  // client-go ignores the exec plugin of a user that also has a token, basic auth or a client certificate: the
  // explicit credential is what the user meant.
  const staticCredential = user.token !== undefined || user.tokenFile !== undefined || user.basic !== undefined || tls.cert !== undefined;
  const exec =
    user.exec === undefined || staticCredential
      ? undefined
      : await ExecCredentials.start({
          settings: user.exec,
          user: user.description,
          cluster: user.exec.provideClusterInfo ? execClusterInfo(cluster, tls) : undefined,
          environment: options.environment,
          timeoutMs: options.execTimeoutMs,
        });
  return new CredentialsAuth({ server: cluster.server, tls, proxy, fixedHeaders, tokenFile, exec });
}

async function clusterTls(cluster: ClusterSettings, user: UserSettings): Promise<ClusterTls> {
  let ca: Buffer | undefined;
  if (cluster.certificateAuthority !== undefined) {
    const what = `certificate-authority of ${cluster.description}`;
    ca = await readPem(cluster.certificateAuthority, what);
    checkCertificateAuthority(ca, what);
  }
  let cert: Buffer | undefined;
  let key: Buffer | undefined;
  if (user.clientCertificate !== undefined && user.clientKey !== undefined) {
    cert = await readPem(user.clientCertificate, `client-certificate of ${user.description}`);
    key = await readPem(user.clientKey, `client-key of ${user.description}`);
    checkClientCertificate(cert, key, user.description);
  }
  return { ca, cert, key, servername: cluster.tlsServerName };
}

function execClusterInfo(cluster: ClusterSettings, tls: ClusterTls): ExecClusterInfo {
  return {
    server: cluster.server,
    ...(cluster.tlsServerName === undefined ? {} : { 'tls-server-name': cluster.tlsServerName }),
    ...(tls.ca === undefined ? {} : { 'certificate-authority-data': tls.ca.toString('base64') }),
    ...(cluster.execExtension === undefined ? {} : { config: cluster.execExtension }),
  };
}
