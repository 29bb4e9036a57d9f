import { X509Certificate } from 'node:crypto';
import { isAlreadyExists, isConflict, Resources, selfSignedCertificate, type KubeClient } from '@k8s-operators/controller-core';
import { storeServerName, type StoreService } from './store-endpoint.ts';

/**
 * The backup store service's TLS certificate, kept by the operator in a kubernetes.io/tls Secret beside the service,
 * as CloudNativePG keeps its webhook's: self-signed for the Service's DNS names, so clients trust exactly this
 * certificate (the operator reads it from the Secret and hands it to each backup Job) and no cert-manager is needed.
 * The service mounts the Secret and reloads it when it changes. It is replaced well before it expires.
 */

const VALID_FOR_MS = 365 * 24 * 3600_000;
/** Replaced when less than this is left: the mounted Secret reaches the service within a couple of minutes. */
export const RENEW_BEFORE_MS = 30 * 24 * 3600_000;

function usable(pem: string | undefined, serverName: string, now: number): boolean {
  if (pem === undefined) return false;
  try {
    const certificate = new X509Certificate(pem);
    return Date.parse(certificate.validTo) - now > RENEW_BEFORE_MS && certificate.checkHost(serverName) !== undefined;
  } catch {
    return false;
  }
}

const decode = (value: string | undefined): string | undefined => (value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8'));

/** The certificate (PEM) clients must trust; made, or replaced when it is about to expire, if need be. */
export async function ensureStoreCertificate(
  client: Pick<KubeClient, 'get' | 'create' | 'update'>,
  service: StoreService & { secretName: string },
  now: () => number = Date.now,
): Promise<string> {
  const serverName = storeServerName(service);
  const key = { namespace: service.namespace, name: service.secretName };
  // Two replicas may start at once: the one that loses the create or the update reads what the other wrote.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const secret = await client.get(Resources.Secret, key);
    const current = decode(secret?.data?.['tls.crt']);
    if (current !== undefined && usable(current, serverName, now())) return current;
    const made = selfSignedCertificate({
      commonName: serverName,
      hosts: [service.name, `${service.name}.${service.namespace}`, serverName, `${serverName}.cluster.local`],
      validForMs: VALID_FOR_MS,
      now: new Date(now()),
    });
    const desired = {
      apiVersion: 'v1' as const,
      kind: 'Secret' as const,
      type: 'kubernetes.io/tls',
      metadata: { ...key, labels: { 'app.kubernetes.io/component': 'backup-store', 'app.kubernetes.io/managed-by': 'postgresql-operator' } },
      data: { 'tls.crt': Buffer.from(made.cert).toString('base64'), 'tls.key': Buffer.from(made.key).toString('base64') },
    };
    try {
      if (secret === undefined) await client.create(Resources.Secret, desired);
      else await client.update(Resources.Secret, { ...desired, metadata: { ...desired.metadata, resourceVersion: secret.metadata?.resourceVersion ?? '' } });
      return made.cert;
    } catch (error) {
      if (!isAlreadyExists(error) && !isConflict(error)) throw error;
    }
  }
  throw new Error(`the backup store's certificate Secret ${key.namespace}/${key.name} kept changing while it was being replaced`);
}
