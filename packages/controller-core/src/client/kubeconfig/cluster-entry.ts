import { checkProxyProtocol } from '../proxy/proxy-protocols.ts';
import { EntryFields } from './entry-fields.ts';
import { isMapping, type KubeconfigEntry } from './kubeconfig-file.ts';

/** Where a PEM block comes from: a file (absolute path) or base64 data inline in the kubeconfig. */
export type PemSource = { readonly file: string } | { readonly base64: string };

/** A kubeconfig cluster, validated. */
export interface ClusterSettings {
  readonly name: string;
  /** Describes the entry in messages: `cluster "prod" in /home/me/.kube/config`. */
  readonly description: string;
  /** The server's base URL, https, without trailing slash. */
  readonly server: string;
  readonly certificateAuthority: PemSource | undefined;
  readonly tlsServerName: string | undefined;
  /** `proxy-url`: every request goes through this proxy, whatever HTTPS_PROXY and NO_PROXY say (client-go). */
  readonly proxyUrl: URL | undefined;
  /** The `client.authentication.k8s.io/exec` extension, passed to exec plugins that ask for cluster info. */
  readonly execExtension: unknown;
}

const EXEC_EXTENSION = 'client.authentication.k8s.io/exec';

export function clusterSettings(entry: KubeconfigEntry): ClusterSettings {
  const fields = new EntryFields(entry);
  if (fields.boolean('insecure-skip-tls-verify')) {
    // The same words as kubeconfig-auth.ts, which reads kubeconfigs through client-node.
    throw new Error(
      `kubeconfig cluster ${entry.name} sets insecure-skip-tls-verify; controller-core always verifies the API ` +
        `server's certificate: give the cluster's certificate-authority(-data) instead (${entry.file})`,
    );
  }
  const caFile = fields.path('certificate-authority');
  const caData = fields.string('certificate-authority-data');
  if (caFile !== undefined && caData !== undefined) {
    throw fields.error('sets both certificate-authority and certificate-authority-data: keep one');
  }
  return {
    name: entry.name,
    description: fields.description,
    server: serverUrl(fields),
    certificateAuthority: caFile !== undefined ? { file: caFile } : caData !== undefined ? { base64: caData } : undefined,
    tlsServerName: fields.string('tls-server-name'),
    proxyUrl: proxyUrl(fields),
    execExtension: execExtension(fields),
  };
}

function serverUrl(fields: EntryFields): string {
  const server = fields.string('server');
  if (server === undefined) throw fields.error('has no server');
  // client-go takes a bare host[:port] as https when TLS is configured, and TLS always is here.
  const withScheme = server.includes('://') ? server : `https://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw fields.error(`has server "${server}", which is not a URL`);
  }
  if (url.protocol !== 'https:') {
    throw fields.error(`has server "${server}": controller-core talks to the API server over https only`);
  }
  return withScheme.replace(/\/+$/, '');
}

/** client-go's parseProxyURL: a URL as written (no scheme is assumed), whose scheme the client can use. */
function proxyUrl(fields: EntryFields): URL | undefined {
  const value = fields.string('proxy-url');
  if (value === undefined) return undefined;
  const url = URL.parse(value);
  // The value itself is left out of the message: it may hold the proxy's password.
  if (url === null) throw fields.error('has proxy-url that is not a URL: write it as http://host:port (or https://)');
  return checkProxyProtocol(url, `${fields.description}: proxy-url`);
}

function execExtension(fields: EntryFields): unknown {
  for (const item of fields.list('extensions')) {
    if (isMapping(item) && item.name === EXEC_EXTENSION) return item.extension;
  }
  return undefined;
}
