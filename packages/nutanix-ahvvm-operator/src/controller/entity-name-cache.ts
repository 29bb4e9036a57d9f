import type { ResolveEntityName } from '../desired/desired-vm.ts';
import type { InventoryLookupOptions, PrismEntityKind } from '../vm/prism-vm-api.ts';

/** UUIDs of the Prism entities of `kind` named exactly `name` (subnets: usable on `options.clusterUuid`, if given). */
export type EntityLookup = (kind: PrismEntityKind, name: string, options: InventoryLookupOptions) => Promise<string[]>;

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
 * Resolves the cluster, image and subnet names AhvVms use (v3 and v4 take references by UUID only), asking Prism
 * once per name and remembering the answer for a while: such names change rarely, and 500 VMs on one subnet should
 * cost one lookup, not 500. A name Prism does not know is asked again next time, so a subnet created after the
 * AhvVm is found promptly. Concurrent reconciles asking for the same name share one request.
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
   * Looks up `names` (those not known already) and returns the resolver `desiredVmSpec` takes. Subnets are those a VM
   * on `options.clusterUuid` can use, when it is given; the answer is remembered per cluster.
   */
  async resolverFor(names: readonly { kind: PrismEntityKind; name: string }[], options: InventoryLookupOptions = {}): Promise<ResolveEntityName> {
    const resolved = new Map<string, readonly string[]>();
    for (const { kind, name } of names) {
      const scope: InventoryLookupOptions = kind === 'subnet' && options.clusterUuid !== undefined ? { clusterUuid: options.clusterUuid.toLowerCase() } : {};
      resolved.set(`${kind}/${name}`, await this.#uuids(`${kind}/${scope.clusterUuid ?? ''}/${name}`, kind, name, scope));
    }
    return (kind, name) => resolved.get(`${kind}/${name}`) ?? [];
  }

  async #uuids(key: string, kind: PrismEntityKind, name: string, options: InventoryLookupOptions): Promise<string[]> {
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
