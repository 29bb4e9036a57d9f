/**
 * Hands each Pod its own loopback address. Linux routes all of 127.0.0.0/8 to `lo`, so processes can bind
 * 127.0.0.N without any setup, and two Pods can both listen on :8080 as they would in a real cluster.
 * 127.0.0.1 stays for the control plane; addresses are reused only after the Pod that had one is gone.
 */
export class PodIpAllocator {
  readonly #inUse = new Map<string, string>();
  #next = 10;

  allocate(podUid: string): string {
    const existing = this.#inUse.get(podUid);
    if (existing) return existing;
    const taken = new Set(this.#inUse.values());
    for (let attempt = 0; attempt < 64_000; attempt++) {
      const n = this.#next;
      this.#next = n >= 65_000 ? 10 : n + 1;
      const ip = `127.0.${Math.floor(n / 250)}.${(n % 250) + 2}`;
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
