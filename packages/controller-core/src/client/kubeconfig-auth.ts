import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** The TLS settings of one cluster connection: verified against the kubeconfig's CA, never skipped. */
export interface ClusterTls {
  ca: Buffer | undefined;
  cert: Buffer | undefined;
  key: Buffer | undefined;
  servername: string | undefined;
}

/**
 * How often request headers are rebuilt from the kubeconfig. Token files (the in-cluster ServiceAccount token, rotated
 * by the kubelet) are re-read by client-node once a minute, as client-go does; exec plugins cache their credential until
 * it expires. A 401 rebuilds them at once.
 */
const HEADER_REFRESH_MS = 60_000;

/**
 * Reads a kubeconfig's server, TLS material and credentials through client-node, which knows every auth flavour
 * (client certificates, bearer tokens, token files, exec plugins, OIDC, basic auth, impersonation).
 */
export class KubeConfigAuth {
  readonly server: string;
  readonly tls: ClusterTls;
  readonly #kubeConfig: KubeConfig;
  #headers: Record<string, string>;
  #headersAt: number;

  private constructor(kubeConfig: KubeConfig, server: string, tls: ClusterTls, headers: Record<string, string>) {
    this.#kubeConfig = kubeConfig;
    this.server = server.replace(/\/+$/, '');
    this.tls = tls;
    this.#headers = headers;
    this.#headersAt = Date.now();
  }

  static async load(kubeConfig: KubeConfig): Promise<KubeConfigAuth> {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster (check current-context)');
    if (cluster.skipTLSVerify) {
      throw new Error(
        `kubeconfig cluster ${cluster.name} sets insecure-skip-tls-verify; controller-core always verifies the API ` +
          "server's certificate: give the cluster's certificate-authority(-data) instead",
      );
    }
    const options = await applied(kubeConfig);
    const tls: ClusterTls = {
      ca: asBuffer(options.ca),
      cert: asBuffer(options.cert),
      key: asBuffer(options.key),
      servername: options.servername ?? undefined,
    };
    return new KubeConfigAuth(kubeConfig, cluster.server, tls, headersOf(options));
  }

  /** Authentication (and impersonation) headers for the next request. */
  async headers(): Promise<Record<string, string>> {
    if (Date.now() - this.#headersAt >= HEADER_REFRESH_MS) await this.refresh();
    return this.#headers;
  }

  /** Rebuilds the headers now, e.g. after a 401 because a token was rotated. */
  async refresh(): Promise<void> {
    this.#headers = headersOf(await applied(this.#kubeConfig));
    this.#headersAt = Date.now();
  }
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
