import { readFileSync } from 'node:fs';

const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The namespace this process runs in: POD_NAMESPACE (set from the downward API), else the ServiceAccount's, else undefined. */
export function podNamespace(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
