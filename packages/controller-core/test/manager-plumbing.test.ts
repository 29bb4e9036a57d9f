// What the manager hands its reconcilers: a reader over its caches, Event recorders, status writers and the Pod's
// identity. Against a real API server, as operators use them.
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { waitFor } from '@k8s-operators/testkit';
import { CONTROLLER_OWNER_INDEX, Manager, Resources, type ManagerOptions, type ObjectOf } from '../src/index.ts';
import { createNamespace, startTestCluster, type TestCluster } from './client-test-cluster.ts';

type ConfigMap = ObjectOf<typeof Resources.ConfigMap>;

let cluster: TestCluster;
const quiet = pino({ level: 'silent' });

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster.stop();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function namespace(name: string): Promise<string> {
  await createNamespace(cluster.client, name);
  return name;
}

function configMap(namespace: string, name: string, metadata: ConfigMap['metadata'] = {}): Promise<ConfigMap> {
  return cluster.client.create(Resources.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...metadata, name, namespace } });
}

/** A manager limited to `ns` with no servers; leader election off unless `leaderElection` says otherwise. */
function createManager(ns: string, options: Partial<ManagerOptions> = {}): Promise<Manager> {
  return Manager.create({
    name: 'plumbing', kubeconfig: cluster.controlPlane.adminKubeconfig, namespace: ns, logger: quiet,
    healthProbeBindAddress: '0', metricsBindAddress: '0', leaderElection: { enabled: false }, ...options,
  });
}

/** Starts `manager` with a ConfigMap controller that does nothing; resolves once that controller runs. */
async function started(manager: Manager): Promise<{ done: Promise<void> }> {
  let running = false;
  manager.controller('configmaps').for(Resources.ConfigMap).complete(() => {
    running = true;
    return Promise.resolve(undefined);
  });
  const done = manager.start();
  done.catch(() => undefined);
  await waitFor(() => running, { what: 'the controller to reconcile' });
  // Wrapped: an async function returning the promise itself would wait for it, that is for the manager to stop.
  return { done };
}

describe('manager.reader', () => {
  test('reads what the controllers\' informers hold, by key, namespace, labels and index, without a request', async () => {
    const ns = await namespace('reader');
    const ownerUid = (await configMap(ns, 'owner')).metadata?.uid ?? '';
    await configMap(ns, 'owned', { labels: { tier: 'web' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: ownerUid, controller: true }] });
    await configMap(ns, 'unowned', { labels: { tier: 'db' } });
    const manager = await createManager(ns);
    const { done } = await started(manager);
    const requestsBefore = manager.client.requestCounts();

    const owned = await manager.reader.get(Resources.ConfigMap, { namespace: ns, name: 'owned' });
    expect(owned?.metadata?.labels).toEqual({ tier: 'web' });
    // The cache's own object, shared with every reader.
    expect(Object.isFrozen(owned)).toBe(true);
    expect(await manager.reader.get(Resources.ConfigMap, { namespace: ns, name: 'missing' })).toBeUndefined();
    const names = (objects: { metadata?: { name?: string } }[]): string[] => objects.map((o) => o.metadata?.name ?? '').filter((n) => n !== 'kube-root-ca.crt').sort();
    expect(names(await manager.reader.list(Resources.ConfigMap, { namespace: ns }))).toEqual(['owned', 'owner', 'unowned']);
    expect(names(await manager.reader.list(Resources.ConfigMap, { matchingLabels: { tier: 'db' } }))).toEqual(['unowned']);
    expect(names(await manager.reader.list(Resources.ConfigMap, { index: { name: CONTROLLER_OWNER_INDEX, value: ownerUid } }))).toEqual(['owned']);
    expect(manager.client.requestCounts()).toEqual(requestsBefore);

    manager.stop();
    await done;
  });

  test('a resource no controller watches gets an informer in the manager\'s namespace only; other namespaces are refused', async () => {
    const ns = await namespace('reader-scope');
    const other = await namespace('reader-elsewhere');
    const secret = (namespace: string, name: string) => cluster.client.create(Resources.Secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace } });
    await secret(other, 'there');
    await secret(ns, 'here');
    const manager = await createManager(ns);
    await expect(manager.reader.list(Resources.Secret)).rejects.toThrow(/caches start with manager\.start\(\)/);
    const { done } = await started(manager);

    // Waits for the new informer's first list, so the Secret is there on the first read.
    expect((await manager.reader.list(Resources.Secret)).map((s) => s.metadata?.name)).toEqual(['here']);
    expect(manager.informerFor(Resources.Secret).scope.namespace).toBe(ns);
    await expect(manager.reader.get(Resources.Secret, { namespace: other, name: 'there' })).rejects.toThrow(
      `manager.reader.get: Secret in namespace "${other}" is outside the manager's caches, which hold namespace "${ns}" only`,
    );
    await expect(manager.reader.list(Resources.Secret, { namespace: other })).rejects.toThrow(/outside the manager's caches/);
    await expect(manager.reader.get(Resources.Secret, { name: 'here' })).rejects.toThrow('manager.reader.get: Secret "here" is namespaced; give its namespace');

    manager.stop();
    await done;
  });

  test('`scope` reads the informer narrowed to a selector, as a watch with that scope uses', async () => {
    const ns = await namespace('reader-narrowed');
    await configMap(ns, 'labelled', { labels: { 'example.com/instance': 'a' } });
    await configMap(ns, 'plain');
    const manager = await createManager(ns);
    const { done } = await started(manager);

    const scope = { labelSelector: 'example.com/instance' };
    expect((await manager.reader.list(Resources.ConfigMap, { scope })).map((c) => c.metadata?.name)).toEqual(['labelled']);
    expect(await manager.reader.get(Resources.ConfigMap, { namespace: ns, name: 'plain' }, { scope })).toBeUndefined();
    expect(manager.informerFor(Resources.ConfigMap, scope).cache.size).toBe(1);

    manager.stop();
    await done;
  });
});

describe('per-process writers', () => {
  test('one Event recorder per reporting controller and one status writer per field manager', async () => {
    const manager = await createManager('default');
    expect(manager.eventRecorderFor('example.com/one')).toBe(manager.eventRecorderFor('example.com/one'));
    expect(manager.eventRecorderFor('example.com/two')).not.toBe(manager.eventRecorderFor('example.com/one'));
    expect(manager.statusWriter('one-operator')).toBe(manager.statusWriter('one-operator'));
    expect(manager.statusWriter('two-operator')).not.toBe(manager.statusWriter('one-operator'));
    await manager.client.close();
  });

  test('Events report the Pod as their instance, the lease holder is named after it, and a stop sends pending Events', async () => {
    vi.stubEnv('POD_NAME', 'plumbing-7d9f-x2k4q');
    const ns = await namespace('identity');
    const manager = await createManager(ns, {
      leaderElection: { namespace: ns, name: 'plumbing-leader', leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 },
    });
    const { done } = await started(manager);
    const lease = await cluster.client.get(Resources.Lease, { namespace: ns, name: 'plumbing-leader' });
    expect(lease?.spec?.holderIdentity).toMatch(/^plumbing-7d9f-x2k4q_[0-9a-f-]{36}$/);

    const regarding = await configMap(ns, 'regarding');
    const events = manager.eventRecorderFor('example.com/plumbing');
    const details = { type: 'Normal', reason: 'Checked', action: 'Check', note: 'checked twice' } as const;
    events.event(regarding, details);
    // A repeat within 30 s of the first write waits for the next write; only the stop sends it now.
    events.event(regarding, details);
    manager.stop();
    await done;

    const list = await cluster.client.list(Resources.Event, { namespace: ns });
    expect(list.items.map((e) => ({ instance: e.reportingInstance, controller: e.reportingController, count: e.series?.count }))).toEqual([
      { instance: 'plumbing-7d9f-x2k4q', controller: 'example.com/plumbing', count: 2 },
    ]);
  });
});
