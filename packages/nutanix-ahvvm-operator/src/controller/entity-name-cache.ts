import type { NameKind, ResolveEntityName } from '../desired/desired-vm.ts';
import { imagesMatchingNewestFirst } from '../vm/image-lookup.ts';
import type { InventoryLookupOptions, PrismVmApi } from '../vm/prism-vm-api.ts';

/**
 * UUIDs of the Prism entities of `kind` named exactly `name` (subnets and storage containers: of `options.clusterUuid`,
 * if given); for `image_lookup`, of the images the pattern `name` matches, newest first.
 */
export type EntityLookup = (kind: NameKind, name: string, options: InventoryLookupOptions) => Promise<string[]>;

/** The lookup through the API a connection speaks: its inventory calls, and its image list for `image_lookup`. */
export function prismEntityLookup(vms: () => Promise<PrismVmApi>): EntityLookup {
  return async (kind, name, options) => {
    const api = await vms();
    return kind === 'image_lookup' ? imagesMatchingNewestFirst(await api.listImages(), name) : api.listEntityUuidsByName(kind, name, options);
  };
}

/** Kinds whose names are looked up on one cluster: a subnet a VM there can use, a storage container of that cluster. */
const SCOPED_TO_CLUSTER: readonly NameKind[] = ['subnet', 'storage_container'];

export interface EntityNameCacheOptions {
  /** How long a name found in Prism is trusted. Default 5 minutes. */
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  uuids: Promise<string[]>;
  at: number;
}

/**
 * Resolves the cluster, image, subnet and storage container names and the image lookups AhvVms use (v3 and v4 take
 * references by UUID only), asking Prism once per name and remembering the answer for a while: such names change
 * rarely, and 500 VMs on one subnet should cost one lookup, not 500. A name Prism does not know is asked again next
 * time, so a subnet created after the AhvVm is found promptly; an image uploaded for a lookup that already matched
 * is seen once the answer is older than the TTL. Concurrent reconciles asking for the same name share one request.
 */
export class EntityNameCache {
  readonly #lookup: EntityLookup;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(lookup: EntityLookup, options: EntityNameCacheOptions = {}) {
    this.#lookup = lookup;
    this.#ttlMs = options.ttlMs ?? 300_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Looks up `names` (those not known already) and returns the resolver `desiredVmSpec` takes. Subnets and storage
   * containers are those of `options.clusterUuid`, when it is given; the answer is remembered per cluster.
   */
  async resolverFor(names: readonly { kind: NameKind; name: string }[], options: InventoryLookupOptions = {}): Promise<ResolveEntityName> {
    const resolved = new Map<string, readonly string[]>();
    for (const { kind, name } of names) {
      const scope: InventoryLookupOptions = SCOPED_TO_CLUSTER.includes(kind) && options.clusterUuid !== undefined ? { clusterUuid: options.clusterUuid.toLowerCase() } : {};
      resolved.set(`${kind}/${name}`, await this.#uuids(`${kind}/${scope.clusterUuid ?? ''}/${name}`, kind, name, scope));
    }
    return (kind, name) => resolved.get(`${kind}/${name}`) ?? [];
  }

  async #uuids(key: string, kind: NameKind, name: string, options: InventoryLookupOptions): Promise<string[]> {
    const cached = this.#entries.get(key);
    if (cached !== undefined && this.#now() - cached.at < this.#ttlMs) return cached.uuids;
    const entry: Entry = { uuids: this.#lookup(kind, name, options), at: this.#now() };
    this.#entries.set(key, entry);
    try {
      const uuids = await entry.uuids;
      if (uuids.length === 0 && this.#entries.get(key) === entry) this.#entries.delete(key);
      return uuids;
    } catch (error) {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
      throw error;
    }
  }
}
