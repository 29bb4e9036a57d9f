/**
 * A small map whose entries expire, bounded in size (least recently used out first), that also shares one load among
 * concurrent callers of the same key. A load that throws is not remembered.
 */
export class TtlCache<V> {
  readonly #max: number;
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #loading = new Map<string, Promise<V>>();

  constructor(max: number) {
    this.#max = max;
  }

  async getOrLoad(key: string, load: () => Promise<{ value: V; ttlMs: number }>): Promise<V> {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      if (entry.expiresAt > performance.now()) {
        this.#entries.set(key, entry);
        return entry.value;
      }
    }
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const loading = load().then(({ value, ttlMs }) => {
      this.#entries.set(key, { value, expiresAt: performance.now() + ttlMs });
      for (const oldest of this.#entries.keys()) {
        if (this.#entries.size <= this.#max) break;
        this.#entries.delete(oldest);
      }
      return value;
    }).finally(() => { this.#loading.delete(key); });
    this.#loading.set(key, loading);
    return loading;
  }
}
