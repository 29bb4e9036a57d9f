import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

export type KubeconfigCredentials =
  | { kind: 'certificate'; certFile: string; keyFile: string }
  | { kind: 'token'; token: string };

export interface KubeconfigSpec {
  server: string;
  caPem: string;
  user: string;
  credentials: KubeconfigCredentials;
  namespace?: string;
}

/** Writes a self-contained kubeconfig (everything embedded), readable by kubectl and client libraries alike. */
export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<string> {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const user =
    spec.credentials.kind === 'token'
      ? { token: spec.credentials.token }
      : {
          'client-certificate-data': b64(await readFile(spec.credentials.certFile, 'utf8')),
          'client-key-data': b64(await readFile(spec.credentials.keyFile, 'utf8')),
        };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'testkit', cluster: { server: spec.server, 'certificate-authority-data': b64(spec.caPem) } }],
    users: [{ name: spec.user, user }],
    contexts: [{ name: spec.user, context: { cluster: 'testkit', user: spec.user, ...(spec.namespace ? { namespace: spec.namespace } : {}) } }],
    'current-context': spec.user,
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
  return path;
}
