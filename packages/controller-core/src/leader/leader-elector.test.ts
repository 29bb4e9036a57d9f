import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../client/kube-client.ts';
import { LeaderElector } from './leader-elector.ts';
import type { Lease } from './lease-record.ts';

/**
 * A lease store in memory that answers until `hang()`; after that every request waits for its signal, as requests do
 * to an API server whose etcd is gone. The real API server cases are in test/manager.test.ts.
 */
function leaseStore() {
  let lease: Lease | undefined;
  let version = 0;
  let hanging = false;
  const abandoned: unknown[] = [];
  const answer = <T>(value: () => T, signal: AbortSignal | undefined): Promise<T> => {
    if (!hanging) return Promise.resolve(value());
    return new Promise<T>((_, reject) => {
      signal?.addEventListener('abort', () => { abandoned.push(signal.reason); reject(signal.reason as Error); }, { once: true });
    });
  };
  const store = (next: Lease): Lease => {
    lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: next.spec, metadata: { name: next.metadata?.name, namespace: next.metadata?.namespace, resourceVersion: String(++version) } };
    return lease;
  };
  const client = {
    get: (_ref: unknown, _key: unknown, options: { signal?: AbortSignal } = {}) => answer(() => lease, options.signal),
    create: (_ref: unknown, obj: Lease, options: { signal?: AbortSignal } = {}) => answer(() => store(obj), options.signal),
    update: (_ref: unknown, obj: Lease, options: { signal?: AbortSignal } = {}) => answer(() => store(obj), options.signal),
  } as unknown as KubeClient;
  return {
    client, abandoned,
    hang: () => { hanging = true; },
    resume: () => { hanging = false; },
    holder: () => lease?.spec?.holderIdentity,
    takeOver: (identity: string) => { if (lease) store({ metadata: lease.metadata, spec: { ...lease.spec, holderIdentity: identity } }); },
  };
}

describe('LeaderElector', () => {
  it('steps down when a renewal hangs, abandoning the request at the renew deadline instead of waiting for an answer', async () => {
    // client-go bounds each renew round by RenewDeadline (leaderelection.go, renew()); without the bound, a leader whose
    // request the API server holds would go on leading after its lease had expired for everyone else.
    const store = leaseStore();
    const elector = new LeaderElector(store.client, { namespace: 'ns', name: 'lease', identity: 'me', leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 });
    const stop = new AbortController();
    expect(await elector.acquire(stop.signal)).toBe(true);
    expect(store.holder()).toBe('me');

    store.hang();
    expect(await elector.hold(stop.signal)).toBe('lost');
    expect(elector.isLeader).toBe(false);
    expect(store.abandoned).toHaveLength(1);
    expect((store.abandoned[0] as Error).name).toBe('TimeoutError');
  });

  it('after a loss, takes the lease back at once while it is still the holder on record, and waits while another is', async () => {
    const store = leaseStore();
    const options = { namespace: 'ns', name: 'lease', identity: 'me', leaseDurationMs: 60_000, renewDeadlineMs: 1_000, retryPeriodMs: 200 };
    const elector = new LeaderElector(store.client, options);
    const stop = new AbortController();
    expect(await elector.acquire(stop.signal)).toBe(true);
    store.hang();
    expect(await elector.hold(stop.signal)).toBe('lost');

    // Nobody else took over (the record still names this process), so nobody else acted: leading again is safe.
    store.resume();
    expect(await elector.acquire(stop.signal)).toBe(true);
    store.hang();
    expect(await elector.hold(stop.signal)).toBe('lost');

    // Another replica took the lease meanwhile: this one waits out that lease (60 s), like any candidate.
    store.resume();
    store.takeOver('other');
    expect(await elector.acquire(AbortSignal.timeout(1_500))).toBe(false);
    expect(store.holder()).toBe('other');
  });
});
