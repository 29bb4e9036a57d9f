import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ControlPlane, KubeApi, waitFor } from '@k8s-operators/testkit';
import { Manager, Resources, TerminalError, type ReconcileContext } from '../src/index.ts';

let cp: ControlPlane;
let api: KubeApi;
const quiet = pino({ level: 'silent' });

beforeAll(async () => {
  cp = await ControlPlane.start({ dir: await mkdtemp(join(tmpdir(), 'manager-')) });
  api = await KubeApi.fromKubeconfig(cp.adminKubeconfig);
});
afterAll(async () => {
  await api.close();
  await cp.stop();
});

async function namespace(name: string): Promise<string> {
  await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

async function configMap(ns: string, name: string, data: Record<string, string> = {}): Promise<void> {
  await api.create(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
}

interface Started { manager: Manager; done: Promise<void>; reconciles: ReconcileContext[] }

/** A manager with one ConfigMap controller whose reconciler is given; leader election with short test durations. */
async function startManager(ns: string, identity: string, reconcile: (ctx: ReconcileContext) => Promise<{ requeueAfterMs?: number } | undefined>, options: { releaseOnCancel?: boolean; maxConcurrentReconciles?: number; watchStaleAfterMs?: number; leaderElection?: boolean } = {}): Promise<Started> {
  const manager = await Manager.create({
    name: 'test', kubeconfig: cp.adminKubeconfig, namespace: ns, logger: quiet,
    // Plain HTTP metrics: these tests read them as admin; the secure server has tests of its own (metrics-auth.test.ts).
    healthProbeBindAddress: '127.0.0.1:0', metricsBindAddress: '127.0.0.1:0', metricsSecure: false, gracefulShutdownTimeoutMs: 5_000,
    ...(options.watchStaleAfterMs ? { watchStaleAfterMs: options.watchStaleAfterMs } : {}),
    leaderElection: { enabled: options.leaderElection ?? true, namespace: ns, name: 'test-leader', identity, leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500, releaseOnCancel: options.releaseOnCancel ?? true },
  });
  const reconciles: ReconcileContext[] = [];
  manager.controller('configmaps').for(Resources.ConfigMap).withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 }).complete(async (ctx) => {
    reconciles.push(ctx);
    return reconcile(ctx);
  });
  const done = manager.start();
  done.catch(() => undefined);
  return { manager, done, reconciles };
}

async function holder(ns: string): Promise<string | undefined> {
  const lease = await api.get<{ spec: { holderIdentity?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/test-leader`);
  // An empty holder (a released lease) means nobody leads.
  const holderIdentity = lease?.spec.holderIdentity;
  return holderIdentity === '' ? undefined : holderIdentity;
}

test('manager.informerFor hands out the controllers\' own informer, limited to the manager\'s namespace', async () => {
  const ns = await namespace('shared');
  const other = await namespace('elsewhere');
  const { manager, done, reconciles } = await startManager(ns, 'solo', () => Promise.resolve(undefined), { leaderElection: false });
  // The other namespace's first: a watch of all namespaces would deliver it before the one waited for.
  await configMap(other, 'there');
  await configMap(ns, 'here');
  await waitFor(() => reconciles.some((ctx) => ctx.request.key === `${ns}/here`), { what: 'the ConfigMap in the manager\'s namespace to be reconciled' });
  const configMaps = manager.informerFor(Resources.ConfigMap);
  // Synced the moment it is handed out: the builder's for(ConfigMap) informer, not a second watch that has yet to list.
  expect(configMaps.synced).toBe(true);
  expect(configMaps.cache.get(`${ns}/here`)).toBeDefined();
  expect(configMaps.cache.get(`${other}/there`)).toBeUndefined();
  manager.stop();
  await done;
});

describe('leader election', () => {
  test('exactly one of two managers leads; a graceful stop hands over within 3 s; no reconcile runs on a non-leader', async () => {
    const ns = await namespace('leader-graceful');
    await configMap(ns, 'a');
    const one = await startManager(ns, 'one', () => Promise.resolve(undefined));
    const two = await startManager(ns, 'two', () => Promise.resolve(undefined));
    const first = await waitFor(() => holder(ns), { what: 'a leader' });
    const [leader, follower] = first === 'one' ? [one, two] : [two, one];
    await waitFor(() => leader.reconciles.length > 0, { what: 'the leader to reconcile' });
    expect(leader.manager.isLeader).toBe(true);
    expect(follower.manager.isLeader).toBe(false);
    expect(follower.reconciles).toHaveLength(0);

    const stoppedAt = Date.now();
    leader.manager.stop();
    await leader.done;
    await waitFor(() => follower.manager.isLeader, { what: 'the follower to lead', timeoutMs: 10_000 });
    const handover = Date.now() - stoppedAt;
    expect(handover).toBeLessThan(3_000);
    await waitFor(() => follower.reconciles.length > 0, { what: 'the new leader to reconcile' });
    follower.manager.stop();
    await follower.done;
  });

  test('a follower queues nothing while objects change (workqueue_depth 0), and on taking over is handed every object', async () => {
    // Found by the soak: a follower's handlers queued every event for a leadership it might never get, so the sum of
    // workqueue_depth over an operator's replicas grew all run long, as if the leader were falling behind.
    const ns = await namespace('leader-follower-queue');
    await configMap(ns, 'before');
    const one = await startManager(ns, 'one', () => Promise.resolve(undefined));
    await waitFor(() => one.manager.isLeader, { what: 'the first manager to lead' });
    const two = await startManager(ns, 'two', () => Promise.resolve(undefined));
    await waitFor(() => two.manager.informerFor(Resources.ConfigMap).synced, { what: 'the follower\'s cache to sync' });
    for (const name of ['during-1', 'during-2', 'during-3']) await configMap(ns, name);
    await waitFor(() => two.manager.informerFor(Resources.ConfigMap).cache.get(`${ns}/during-3`) !== undefined, { what: 'the follower to see the changes' });
    const depth = async (started: Started): Promise<string> =>
      (await (await fetch(`http://127.0.0.1:${String(started.manager.ports.metrics)}/metrics`)).text()).split('\n').find((line) => line.startsWith('workqueue_depth{')) ?? 'no workqueue_depth';
    expect(await depth(two)).toBe('workqueue_depth{name="configmaps",controller="configmaps",priority="0"} 0');
    expect(two.reconciles).toHaveLength(0);

    one.manager.stop();
    await one.done;
    await waitFor(() => two.manager.isLeader, { what: 'the follower to lead', timeoutMs: 10_000 });
    // Every ConfigMap of the namespace, kube-root-ca.crt included, as the API server lists them.
    const listed = await api.get<{ items: { metadata: { name: string } }[] }>(`/api/v1/namespaces/${ns}/configmaps`);
    const every = (listed?.items ?? []).map((item) => `${ns}/${item.metadata.name}`).sort();
    expect(every).toEqual(expect.arrayContaining([`${ns}/before`, `${ns}/during-1`, `${ns}/during-2`, `${ns}/during-3`]));
    const keys = (): string[] => [...new Set(two.reconciles.map((ctx) => ctx.request.key))].sort();
    await waitFor(() => keys().length === every.length, { what: 'the new leader to reconcile every ConfigMap' });
    expect(keys()).toEqual(every);
    two.manager.stop();
    await two.done;
  });

  test('a leader that dies without releasing is replaced within LeaseDuration + RetryPeriod', async () => {
    const ns = await namespace('leader-crash');
    const one = await startManager(ns, 'one', () => Promise.resolve(undefined), { releaseOnCancel: false });
    await waitFor(() => one.manager.isLeader, { what: 'the first manager to lead' });
    const two = await startManager(ns, 'two', () => Promise.resolve(undefined));
    const stoppedAt = Date.now();
    one.manager.stop();
    await one.done;
    expect(await holder(ns)).toBe('one');
    await waitFor(() => two.manager.isLeader, { what: 'the second manager to lead', timeoutMs: 15_000 });
    // LeaseDuration 4 s + RetryPeriod 0.5 s (× 1.2 jitter), with 1 s for a busy CI machine to schedule the timers.
    expect(Date.now() - stoppedAt).toBeLessThan(4_000 + 600 + 1_000);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(3_000);
    two.manager.stop();
    await two.done;
  });

  test('a leader that cannot renew stops reconciling, stays up, and leads again with every object once the API server is back', async () => {
    // Found by the soak: an etcd restart followed by an API server restart (19 s without an API) made the leader exit
    // with "leader election lost", as controller-runtime's does; users see a container restart for an outage that was
    // not the operator's. It now stops every reconcile and campaigns again, in the same process.
    const ns = await namespace('leader-lost');
    await configMap(ns, 'before');
    const one = await startManager(ns, 'one', () => Promise.resolve(undefined));
    let settled = false;
    void one.done.then(() => { settled = true; }, () => { settled = true; });
    await waitFor(() => one.manager.isLeader, { what: 'leadership' });
    await waitFor(() => one.reconciles.some((ctx) => ctx.request.key === `${ns}/before`), { what: 'the first reconcile' });
    const metric = async (): Promise<string> =>
      (await (await fetch(`http://127.0.0.1:${String(one.manager.ports.metrics)}/metrics`)).text()).split('\n').filter((line) => line.startsWith('leader_election_')).sort().join('\n');
    expect(await metric()).toBe('leader_election_lost_total{name="test-leader"} 0\nleader_election_master_status{name="test-leader"} 1');

    await cp.stopApiServer();
    let reconciledBeforeLoss: number;
    try {
      await waitFor(() => !one.manager.isLeader, { what: 'leadership to be lost', timeoutMs: 15_000 });
      reconciledBeforeLoss = one.reconciles.length;
      expect(await metric()).toBe('leader_election_lost_total{name="test-leader"} 1\nleader_election_master_status{name="test-leader"} 0');
      expect(settled).toBe(false);
    } finally {
      await cp.startApiServer();
    }
    await waitFor(() => one.manager.isLeader, { what: 'leadership again, in the same process', timeoutMs: 30_000 });
    await configMap(ns, 'after');
    // The new leadership is handed every cached object again, as a new process would be, and sees new ones.
    const since = (): string[] => [...new Set(one.reconciles.slice(reconciledBeforeLoss).map((ctx) => ctx.request.key))];
    await waitFor(() => since().includes(`${ns}/before`) && since().includes(`${ns}/after`), { what: 'every ConfigMap reconciled again' });
    expect(settled).toBe(false);
    one.manager.stop();
    await one.done;
  });

  test('a reconcile held by an API server waiting on a lost etcd ends with the leadership, even when it did not pass its signal', async () => {
    // An API server whose etcd is gone holds every request until its own 60 s timeout, and our transport waits 90 s. A
    // reconcile in such a request when the lease is lost used to outlast the 5 s the controller waits: the process
    // exited. Every request a reconcile makes now ends with it (client/request-scope.ts), passed its signal or not.
    const ns = await namespace('leader-lost-mid-request');
    await configMap(ns, 'held');
    const go = Promise.withResolvers<undefined>();
    const outcome = Promise.withResolvers<string>();
    const started: { manager?: Manager } = {};
    const one = await startManager(ns, 'one', async (ctx) => {
      if (ctx.request.key !== `${ns}/held`) return undefined;
      await go.promise;
      // No { signal: ctx.signal } here, on purpose: the call a reconciler forgot to hand its signal.
      await started.manager?.client.get(Resources.ConfigMap, { namespace: ns, name: 'held' }).then(
        () => { outcome.resolve('answered'); },
        (error: unknown) => { outcome.resolve(`failed: ${(error as Error).message}`); },
      );
      return undefined;
    });
    started.manager = one.manager;
    let settled = false;
    void one.done.then(() => { settled = true; }, () => { settled = true; });
    await waitFor(() => one.reconciles.some((ctx) => ctx.request.key === `${ns}/held`), { what: 'the reconcile to start' });

    await cp.stopEtcd();
    try {
      go.resolve(undefined);
      await waitFor(() => !one.manager.isLeader, { what: 'leadership to be lost', timeoutMs: 15_000 });
      expect(await outcome.promise).toBe('failed: leader election lost');
    } finally {
      await cp.startEtcd();
    }
    await waitFor(() => one.manager.isLeader, { what: 'leadership again, in the same process', timeoutMs: 30_000 });
    // A reconcile held past the 5 s a stop waits for it would have made start() reject (the process exits).
    expect(settled).toBe(false);
    one.manager.stop();
    await one.done;
  });

  test('a leader whose lease another replica took stops reconciling and follows; it leads again only once that one has gone', async () => {
    const ns = await namespace('leader-taken');
    const one = await startManager(ns, 'one', () => Promise.resolve(undefined));
    await waitFor(() => one.manager.isLeader, { what: 'the first manager to lead' });
    // As if 'two' had taken the lease while 'one' could not reach the API server: it is the holder on record, so the
    // manager named 'two' leads at once, and 'one' can no longer renew.
    // A merge patch carries no resourceVersion, so it cannot lose a race with one's renewals.
    await api.mergePatch(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/test-leader`, { spec: { holderIdentity: 'two' } });
    const two = await startManager(ns, 'two', () => Promise.resolve(undefined));
    await waitFor(() => two.manager.isLeader, { what: 'the second manager to lead' });
    await waitFor(() => !one.manager.isLeader, { what: 'the first manager to step down', timeoutMs: 15_000 });

    const reconciledByOne = one.reconciles.length;
    await configMap(ns, 'while-two-leads');
    await waitFor(() => two.reconciles.some((ctx) => ctx.request.key === `${ns}/while-two-leads`), { what: 'the leader to reconcile the new ConfigMap' });
    expect(one.reconciles.slice(reconciledByOne)).toEqual([]);
    expect(one.manager.isLeader).toBe(false);

    two.manager.stop();
    await two.done;
    await waitFor(() => one.manager.isLeader, { what: 'the first manager to lead again', timeoutMs: 15_000 });
    await waitFor(() => one.reconciles.some((ctx) => ctx.request.key === `${ns}/while-two-leads`), { what: 'the first manager to reconcile what changed meanwhile' });
    one.manager.stop();
    await one.done;
  });
});

describe('reconcile semantics', () => {
  test('failures back off exponentially, terminal errors are not retried, requeueAfter fires, one key never runs twice at once', async () => {
    const ns = await namespace('semantics');
    const attempts = new Map<string, number[]>();
    const running = new Set<string>();
    let overlaps = 0;
    const { manager, done } = await startManager(ns, 'solo', async (ctx) => {
      const key = ctx.request.key;
      if (running.has(key)) overlaps++;
      running.add(key);
      try {
        attempts.set(key, [...(attempts.get(key) ?? []), performance.now()]);
        const n = attempts.get(key)?.length ?? 0;
        await new Promise((r) => setTimeout(r, 20));
        if (ctx.request.name === 'failing' && n <= 5) throw new Error(`attempt ${n} fails`);
        if (ctx.request.name === 'terminal') throw new TerminalError('spec is invalid');
        if (ctx.request.name === 'periodic' && n < 3) return { requeueAfterMs: 300 };
        return undefined;
      } finally {
        running.delete(key);
      }
    }, { maxConcurrentReconciles: 4 });
    await waitFor(() => manager.isLeader, { what: 'leadership' });
    await configMap(ns, 'failing');
    await configMap(ns, 'terminal');
    await configMap(ns, 'periodic');
    await waitFor(() => (attempts.get(`${ns}/failing`)?.length ?? 0) >= 6, { what: 'the failing key to succeed on its 6th attempt' });
    await waitFor(() => (attempts.get(`${ns}/periodic`)?.length ?? 0) >= 3, { what: 'requeueAfter to fire twice' });
    // Hammer one key with updates while it reconciles: it must never run concurrently with itself.
    await Promise.all(Array.from({ length: 20 }, (_, i) => api.mergePatch(`/api/v1/namespaces/${ns}/configmaps/periodic`, { data: { i: String(i) } })));

    const failing = attempts.get(`${ns}/failing`) ?? [];
    const gaps = failing.slice(1).map((t, i) => t - (failing[i] ?? t));
    // The n-th retry waits at least 5 ms × 2^n (5, 10, 20, 40, 80 ms) on top of the reconcile itself. Lower bounds only
    // grow on a loaded machine, so this proves the exponential schedule without comparing timings with each other.
    expect(gaps).toHaveLength(5);
    gaps.forEach((gap, n) => { expect(gap).toBeGreaterThanOrEqual(5 * 2 ** n); });
    const periodic = attempts.get(`${ns}/periodic`) ?? [];
    expect((periodic[1] ?? 0) - (periodic[0] ?? 0)).toBeGreaterThanOrEqual(300);

    const metrics = await (await fetch(`http://127.0.0.1:${String(manager.ports.metrics)}/metrics`)).text();
    expect(metrics).toMatch(/workqueue_retries_total\{name="configmaps",controller="configmaps"\} ([5-9]|\d\d+)/);
    expect(metrics).toMatch(/controller_runtime_terminal_reconcile_errors_total\{controller="configmaps"\} 1\n/);
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="configmaps",result="requeue_after"\} [2-9]/);
    expect(metrics).toContain('controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="configmaps"}');
    expect(metrics).toContain('leader_election_master_status{name="test-leader"} 1');
    expect(metrics).toMatch(/rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\}/);
    expect(attempts.get(`${ns}/terminal`)).toHaveLength(1);
    // Object keys are shown only to authorized callers: not on plain HTTP (see metrics-auth.test.ts).
    expect((await fetch(`http://127.0.0.1:${String(manager.ports.metrics)}/debug/queue`)).status).toBe(404);
    expect(overlaps).toBe(0);
    manager.stop();
    await done;
  });
});

describe('priorities', () => {
  test('after a restart with a backlog, an object edited meanwhile is reconciled next, before the objects merely listed', async () => {
    // controller-runtime's priority queue (default since v0.23): the initial list is queued at handler.LowPriority, a
    // change seen on the watch at 0 (pkg/handler/eventhandler.go, WithLowPriorityWhenUnchanged).
    const ns = await namespace('priorities');
    const names = Array.from({ length: 60 }, (_, i) => `cm-${String(i).padStart(3, '0')}`);
    for (const name of names) await configMap(ns, name);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const { manager, done, reconciles } = await startManager(ns, 'solo', async () => {
      await gate;
      return undefined;
    }, { leaderElection: false });
    await waitFor(() => reconciles.length === 1, { what: 'the first reconcile of the backlog to start' });
    // The first key of the list is held; every other listed key waits behind it at low priority.
    expect(reconciles[0]?.request.name).toBe('cm-000');
    const edited = `${ns}/cm-059`;
    await api.mergePatch(`/api/v1/namespaces/${ns}/configmaps/cm-059`, { data: { edited: 'yes' } });
    await waitFor(() => manager.informerFor(Resources.ConfigMap).cache.get(edited)?.data?.edited === 'yes', { what: 'the watch to bring the edit' });
    release();
    await waitFor(() => new Set(reconciles.map((ctx) => ctx.request.key)).size === names.length + 1, { what: 'every ConfigMap to be reconciled' });
    expect(reconciles[1]?.request.key).toBe(edited);
    expect(reconciles[1]?.reasons.map((reason) => reason.event)).toEqual(['Added', 'Updated']);
    // Then the rest of the list, in its order.
    expect(reconciles.slice(2, 4).map((ctx) => ctx.request.name)).toEqual(['cm-001', 'cm-002']);
    manager.stop();
    await done;
  });
});

describe('probes', () => {
  test('/readyz is ok once caches sync and fails while the API server is down (a stalled watch), then recovers', async () => {
    const ns = await namespace('probes');
    // Without leader election: a leader that cannot renew for the renew deadline exits, by design.
    const { manager, done } = await startManager(ns, 'probe', () => Promise.resolve(undefined), { watchStaleAfterMs: 1_500, leaderElection: false });
    const readyz = async (): Promise<{ status: number; body: string }> => {
      const response = await fetch(`http://127.0.0.1:${String(manager.ports.health)}/readyz?verbose`);
      return { status: response.status, body: await response.text() };
    };
    await waitFor(async () => (await readyz()).status === 200, { what: 'readyz ok' });
    expect((await readyz()).body).toContain('[+]informers ok');
    await cp.stopApiServer();
    try {
      const failing = await waitFor(async () => { const r = await readyz(); return r.status === 500 ? r : undefined; }, { what: 'readyz to fail', timeoutMs: 20_000 });
      expect(failing.body).toContain('[-]informers failed');
    } finally {
      await cp.startApiServer();
    }
    await waitFor(async () => (await readyz()).status === 200, { what: 'readyz to recover', timeoutMs: 30_000 });
    manager.stop();
    await done;
  });
});
