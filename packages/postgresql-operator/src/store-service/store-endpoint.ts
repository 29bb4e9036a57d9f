import { Resources, type KubeClient } from '@k8s-operators/controller-core';
import { BackupStoreError } from '../stores/store.ts';
import type { StoreEndpoint, StoreEndpointSource } from './remote-store.ts';
import { ensureStoreCertificate } from './store-certificate.ts';

/**
 * Where the backup store service answers, from its Service's EndpointSlices: a ready Pod's address and the Service's
 * port. The address is used, not the Service's DNS name or ClusterIP, so nothing depends on cluster DNS or a service
 * proxy (neither runs on every test node), and a backup Job is handed an address it can reach directly; the TLS
 * certificate names the Service, which the client checks instead of the address.
 */

export interface StoreService {
  namespace: string;
  name: string;
}

/** The service, and the Secret with its certificate (store-certificate.ts). */
export interface StoreServiceRef extends StoreService {
  secretName: string;
}

/** The DNS name the service's certificate carries and clients verify. */
export function storeServerName(service: StoreService): string {
  return `${service.name}.${service.namespace}.svc`;
}

/** How long a found endpoint is reused; a failed request looks again at once. */
const REUSE_MS = 10_000;

export class StoreEndpoints implements StoreEndpointSource {
  readonly #client: Pick<KubeClient, 'list' | 'get' | 'create' | 'update'>;
  readonly #service: StoreServiceRef;
  readonly #now: () => number;
  #found: { endpoint: Required<StoreEndpoint>; at: number } | undefined;

  constructor(client: Pick<KubeClient, 'list' | 'get' | 'create' | 'update'>, service: StoreServiceRef, now: () => number = Date.now) {
    this.#client = client;
    this.#service = service;
    this.#now = now;
  }

  /** Forgets the endpoint, so the next request looks the service up again (after it failed to connect). */
  forget(): void {
    this.#found = undefined;
  }

  async current(): Promise<Required<StoreEndpoint>> {
    if (this.#found !== undefined && this.#now() - this.#found.at < REUSE_MS) return this.#found.endpoint;
    const { namespace, name } = this.#service;
    const ca = await ensureStoreCertificate(this.#client, this.#service, this.#now);
    const slices = await this.#client.list(Resources.EndpointSlice, { namespace, labelSelector: `kubernetes.io/service-name=${name}` });
    for (const slice of slices.items) {
      const port = slice.ports?.find((p) => p.name === 'https') ?? slice.ports?.[0];
      const ready = (slice.endpoints ?? []).find((e) => e.conditions?.ready !== false && e.addresses.length > 0);
      const address = ready?.addresses[0];
      if (port?.port === undefined || address === undefined) continue;
      const host = slice.addressType === 'IPv6' ? `[${address}]` : address;
      const endpoint = { url: `https://${host}:${port.port}`, serverName: storeServerName(this.#service), ca };
      this.#found = { endpoint, at: this.#now() };
      return endpoint;
    }
    throw new BackupStoreError(
      `the backup store service ${name} in namespace ${namespace} has no ready endpoint: check its Deployment (kubectl -n ${namespace} get deploy,pods -l app.kubernetes.io/component=backup-store)`,
    );
  }
}
