import { randomInt } from 'node:crypto';

/**
 * Hands each Pod its own loopback address. Linux routes all of 127.0.0.0/8 to `lo`, so processes can bind 127.B.X.Y
 * without any setup, and two Pods can both listen on :8080 as they would in a real cluster. Addresses are reused only
 * after the Pod that had one is gone.
 *
 * Each node takes its own /16, 127.B.0.0 with B drawn at random from 1-254: test files and packages run side by side,
 * each with its own cluster, and nodes that all counted from the same first address would give two clusters' Pods the
 * same IP, and one of them would fail with EADDRINUSE. 127.0.0.0/16, where the control plane listens, is never handed out.
 */
export class PodIpAllocator {
  readonly #inUse = new Map<string, string>();
  readonly #block: number;
  #next = 0;

  constructor(block: number = randomInt(1, 255)) {
    if (!Number.isInteger(block) || block < 1 || block > 254) throw new Error(`loopback block must be 1-254, not ${String(block)}`);
    this.#block = block;
  }

  allocate(podUid: string): string {
    const existing = this.#inUse.get(podUid);
    if (existing) return existing;
    const taken = new Set(this.#inUse.values());
    for (let attempt = 0; attempt < 64_000; attempt++) {
      const n = this.#next;
      this.#next = n >= 63_999 ? 0 : n + 1;
      const ip = `127.${String(this.#block)}.${String(Math.floor(n / 250))}.${String((n % 250) + 2)}`;
      if (!taken.has(ip)) {
        this.#inUse.set(podUid, ip);
        return ip;
      }
    }
    throw new Error('no free loopback address left for a Pod');
  }

  release(podUid: string): void {
    this.#inUse.delete(podUid);
  }
}
