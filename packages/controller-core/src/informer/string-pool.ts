import type { KubernetesObject } from '@kubernetes/client-node';

/** Strings longer than this are rarely shared (messages with names in them, annotations holding documents). */
const LONGEST_POOLED = 128;

/** Timestamps remembered by {@link StringPool.recent}. */
const RECENT_TIMESTAMPS = 4;

/**
 * One copy of each string that repeats across the objects of a cache. `JSON.parse` makes a fresh copy of every string
 * value longer than a few characters, so 10,000 Widgets hold 10,000 copies of `bench.k8s-operators.io/v1`, of their
 * condition's reason and of its message (20–60 bytes each); the pool makes them one. Bounded: once full it keeps what
 * it has and lets new strings through as they are.
 */
export class StringPool {
  readonly #strings = new Map<string, string>();
  readonly #capacity: number;
  readonly #recent: string[] = [];
  #nextRecent = 0;

  constructor(capacity = 1024) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#strings.size;
  }

  /** The pooled copy of `value`, pooling it if there is room. */
  intern(value: string): string {
    const pooled = this.#strings.get(value);
    if (pooled !== undefined) return pooled;
    if (value.length <= LONGEST_POOLED && this.#strings.size < this.#capacity) this.#strings.set(value, value);
    return value;
  }

  /**
   * The copy of `value` among the last few passed here, for timestamps: objects created or changed together (a bulk
   * import, a controller's first pass) share the second they were written in and arrive one after the other, but a
   * timestamp never comes back once its second has passed, so they are not kept in the pool itself.
   */
  recent(value: string): string {
    for (const seen of this.#recent) if (seen === value) return seen;
    this.#recent[this.#nextRecent] = value;
    this.#nextRecent = (this.#nextRecent + 1) % RECENT_TIMESTAMPS;
    return value;
  }
}

const CONDITION_FIELDS = ['type', 'status', 'reason', 'message'] as const;

/**
 * Replaces, in a fresh object about to be frozen and cached, the string fields that typically repeat from one object to
 * the next with the pool's copy: `apiVersion`, `kind`, `metadata.namespace`, label values, finalizers, owner
 * references' `apiVersion` and `kind`, and `status.conditions`' `type`, `status`, `reason` and `message`; an owner
 * reference's `name` that is the object's own (a ConfigMap named after its owner) becomes the same string; and
 * `creationTimestamp` and the conditions' `lastTransitionTime` are shared with the last few seen. UIDs and
 * resourceVersions are unique and left alone. Objects already frozen (by a custom transform) are left as they are.
 */
export function poolRepeatedStrings<T extends KubernetesObject>(obj: T, pool: StringPool): T {
  if (Object.isFrozen(obj)) return obj;
  const record = obj as Record<string, unknown>;
  poolFields(record, ['apiVersion', 'kind'], pool);
  const metadata = obj.metadata;
  if (metadata !== undefined && !Object.isFrozen(metadata)) {
    const fields = metadata as Record<string, unknown>;
    poolFields(fields, ['namespace'], pool);
    // client-node types creationTimestamp as a Date; the server's JSON, and so the cache, has a string.
    if (typeof fields.creationTimestamp === 'string') fields.creationTimestamp = pool.recent(fields.creationTimestamp);
    if (metadata.labels !== undefined) poolFields(metadata.labels, Object.keys(metadata.labels), pool);
    if (Array.isArray(metadata.finalizers) && !Object.isFrozen(metadata.finalizers)) {
      const finalizers = metadata.finalizers;
      for (let i = 0; i < finalizers.length; i++) {
        const finalizer = finalizers[i];
        if (typeof finalizer === 'string') finalizers[i] = pool.intern(finalizer);
      }
    }
    if (Array.isArray(metadata.ownerReferences)) {
      for (const owner of metadata.ownerReferences) {
        poolFields(owner as unknown as Record<string, unknown>, ['apiVersion', 'kind'], pool);
        if (owner.name === metadata.name && !Object.isFrozen(owner)) owner.name = metadata.name;
      }
    }
  }
  // Whatever the type says, a status is the server's JSON: check each level.
  const status: unknown = record.status;
  const conditions: unknown = typeof status === 'object' && status !== null ? (status as { conditions?: unknown }).conditions : undefined;
  if (Array.isArray(conditions)) {
    for (const condition of conditions as unknown[]) {
      if (typeof condition !== 'object' || condition === null || Object.isFrozen(condition)) continue;
      const fields = condition as Record<string, unknown>;
      poolFields(fields, CONDITION_FIELDS, pool);
      if (typeof fields.lastTransitionTime === 'string') fields.lastTransitionTime = pool.recent(fields.lastTransitionTime);
    }
  }
  return obj;
}

function poolFields(target: Record<string, unknown>, fields: readonly string[], pool: StringPool): void {
  if (Object.isFrozen(target)) return;
  for (const field of fields) {
    const value = target[field];
    if (typeof value === 'string') target[field] = pool.intern(value);
  }
}
