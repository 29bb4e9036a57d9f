import { readFile } from 'node:fs/promises';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { environmentProxy } from '../proxy/environment-proxy.ts';
import type { ClusterAuth } from './cluster-auth.ts';
import { CredentialsAuth } from './credentials-auth.ts';
import { TokenFile } from './token-file.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The in-cluster connection, or why there is none (for the message if no kubeconfig is found either). */
export type InClusterAuth = { readonly auth: ClusterAuth } | { readonly unavailable: string };

/**
 * client-go's InClusterConfig: the API server from the `kubernetes` Service's environment variables, the CA and the
 * ServiceAccount token the kubelet mounts. The token is a projected token the kubelet rotates, so it is a token file.
 */
export async function inClusterAuth(env: Readonly<Record<string, string | undefined>>, serviceAccountDir: string): Promise<InClusterAuth> {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  if (host === '' || port === '') return { unavailable: 'not running in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)' };
  const tokenPath = join(serviceAccountDir, 'token');
  let tokenFile: TokenFile;
  try {
    tokenFile = await TokenFile.open(tokenPath, 'in-cluster ServiceAccount token');
  } catch (error) {
    return { unavailable: `the in-cluster config is unusable (${(error as Error).message})` };
  }
  // Without a readable ca.crt client-go verifies against the system CAs (and logs why); so does this.
  const ca = await readFile(join(serviceAccountDir, 'ca.crt')).catch(() => undefined);
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  return {
    auth: new CredentialsAuth({
      server,
      tls: { ca, cert: undefined, key: undefined, servername: undefined },
      // client-go's InClusterConfig sets no proxy, so HTTPS_PROXY applies unless NO_PROXY names the Service's address.
      proxy: environmentProxy(env, new URL(server)),
      fixedHeaders: {},
      tokenFile,
    }),
  };
}
