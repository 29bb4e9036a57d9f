import { waitFor } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';
import { defineResource, Resources } from '../src/client/resources.ts';
import { CONTROLLER_OWNER_INDEX, NAMESPACE_INDEX } from '../src/informer/indexer.ts';
import { SharedInformer } from '../src/informer/shared-informer.ts';
import { createNamespace } from './client-test-cluster.ts';
import { useInformerTestCluster } from './informer-test-cluster.ts';
import { recordEvents } from './informer-test-recorder.ts';

const informerTest = useInformerTestCluster();
const { log, newFactory } = informerTest;

/** kube-root-ca.crt, which the controller manager publishes into every namespace on its own schedule. */
const ROOT_CA = 'kube-root-ca.crt';

function configMap(namespace: string, name: string, extra: { labels?: Record<string, string>; data?: Record<string, string> } = {}) {
  return { metadata: { name, namespace, ...(extra.labels === undefined ? {} : { labels: extra.labels }) }, data: extra.data ?? {} };
}

describe('SharedInformer', () => {
  it('syncs the initial list, then reports adds, updates with old and new objects, and deletes', async () => {
    await createNamespace(informerTest.client, 'basic');
    for (const name of ['a', 'b', 'c']) await informerTest.client.create(Resources.ConfigMap, configMap('basic', name, { data: { v: '1' } }));
    const informer = newFactory().informerFor(Resources.ConfigMap, { namespace: 'basic' });
    const { events } = recordEvents(informer);
    expect(informer.synced).toBe(false);
    informer.start();
    await informer.waitForSync(30_000);

    expect(informer.synced).toBe(true);
    expect(informer.lastSyncedAt).toBeDefined();
    const initial = events.filter((event) => event.name !== ROOT_CA);
    expect(initial.map((event) => [event.type, event.name, event.flag])).toEqual([
      ['add', 'a', true],
      ['add', 'b', true],
      ['add', 'c', true],
    ]);
    expect(informer.cache.get('basic/a')?.data).toEqual({ v: '1' });
    expect(informer.cache.get({ namespace: 'basic', name: 'b' })?.metadata?.name).toBe('b');
    events.length = 0;

    await informerTest.client.create(Resources.ConfigMap, configMap('basic', 'd'));
    const old = informer.cache.get('basic/a');
    await informerTest.client.patch(Resources.ConfigMap, { namespace: 'basic', name: 'a' }, { type: 'merge', patch: { data: { v: '2' } } });
    await informerTest.client.delete(Resources.ConfigMap, { namespace: 'basic', name: 'b' });
    const changes = () => events.filter((event) => event.name !== ROOT_CA);
    await waitFor(() => changes().length >= 3, { what: 'three notifications', timeoutMs: 15_000 });

    expect(changes().map((event) => [event.type, event.name, event.flag])).toEqual([
      ['add', 'd', false],
      ['update', 'a', undefined],
      ['delete', 'b', false],
    ]);
    const update = changes()[1];
    expect(update?.oldObject).toBe(old);
    expect((update?.oldObject as { data?: unknown }).data).toEqual({ v: '1' });
    expect((update?.object as { data?: unknown }).data).toEqual({ v: '2' });
    expect(informer.cache.get('basic/b')).toBeUndefined();
    const cachedNames = informer.cache.list('basic').map((cm) => cm.metadata?.name);
    expect(cachedNames.filter((name) => name !== ROOT_CA).sort()).toEqual(['a', 'c', 'd']);
  });

  it('lists more than 500 objects page by page for its initial sync', async () => {
    await createNamespace(informerTest.client, 'many');
    const pool = Array.from({ length: 1_100 }, (_, i) => `m${i}`);
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        for (let name = pool.pop(); name !== undefined; name = pool.pop()) await informerTest.client.create(Resources.ConfigMap, configMap('many', name));
      }),
    );
    const informer = newFactory().informerFor(Resources.ConfigMap, { namespace: 'many', labelSelector: '!absent' });
    const listsBefore = informerTest.client.requestCounts().list;
    informer.start();
    await informer.waitForSync(30_000);
    // 1,100 objects (plus kube-root-ca.crt) at 500 per page.
    expect(informerTest.client.requestCounts().list - listsBefore).toBe(3);
    expect(informer.cache.keys().filter((key) => key !== `many/${ROOT_CA}`)).toHaveLength(1_100);
  });

  it('caches deep-frozen objects, without managedFields unless the transform keeps them', async () => {
    await createNamespace(informerTest.client, 'frozen');
    await informerTest.client.create(Resources.ConfigMap, configMap('frozen', 'ice', { labels: { l: 'x' }, data: { k: 'v' } }));
    const stripped = newFactory().informerFor(Resources.ConfigMap, { namespace: 'frozen' });
    const whole = new SharedInformer(informerTest.client, Resources.ConfigMap, { namespace: 'frozen', transform: (obj) => obj, logger: log.logger });
    stripped.start();
    whole.start();
    try {
      await Promise.all([stripped.waitForSync(30_000), whole.waitForSync(30_000)]);
      const cached = stripped.cache.get('frozen/ice');
      if (cached?.metadata?.labels === undefined || cached.data === undefined) throw new Error('ice is not cached');
      expect(Object.isFrozen(cached)).toBe(true);
      expect(Object.isFrozen(cached.metadata)).toBe(true);
      expect(Object.isFrozen(cached.metadata.labels)).toBe(true);
      // ES modules are strict: writing to the shared cached object throws rather than corrupting it silently.
      const labels = cached.metadata.labels;
      expect(() => {
        labels.l = 'changed';
      }).toThrow(TypeError);
      const data = cached.data;
      expect(() => {
        data.k = 'changed';
      }).toThrow(TypeError);
      expect(stripped.cache.get('frozen/ice')?.data).toEqual({ k: 'v' });
      // A copy is the way to change it.
      const copy = structuredClone(cached);
      copy.data = { k: 'mine' };
      expect(copy.data.k).toBe('mine');

      expect(cached.metadata.managedFields).toBeUndefined();
      expect(whole.cache.get('frozen/ice')?.metadata?.managedFields?.length).toBeGreaterThan(0);
    } finally {
      await whole.stop();
    }
  });

  it('indexes by namespace, by controller owner UID and by custom functions, and keeps indexes current', async () => {
    await createNamespace(informerTest.client, 'idx-a');
    await createNamespace(informerTest.client, 'idx-b');
    const owner = await informerTest.client.create(Resources.ConfigMap, configMap('idx-a', 'owner', { labels: { suite: 'index' } }));
    const ownerUid = owner.metadata?.uid ?? '';
    const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: ownerUid, controller: true };
    await informerTest.client.create(Resources.ConfigMap, {
      metadata: { name: 'owned', namespace: 'idx-a', labels: { suite: 'index', color: 'red' }, ownerReferences: [ownerRef] },
    });
    await informerTest.client.create(Resources.ConfigMap, configMap('idx-b', 'free', { labels: { suite: 'index', color: 'red' } }));

    const informer = newFactory().informerFor(Resources.ConfigMap, { labelSelector: 'suite=index' });
    informer.start();
    await informer.waitForSync(30_000);
    // Added after the sync: filled from what is cached.
    informer.addIndexer('color', (cm) => (cm.metadata?.labels?.color === undefined ? [] : [cm.metadata.labels.color]));

    const names = (objects: { metadata?: { name?: string } }[]): string[] => objects.map((obj) => obj.metadata?.name ?? '').sort();
    expect(names(informer.cache.byIndex(NAMESPACE_INDEX, 'idx-a'))).toEqual(['owned', 'owner']);
    expect(names(informer.cache.list('idx-b'))).toEqual(['free']);
    expect(names(informer.cache.byIndex(CONTROLLER_OWNER_INDEX, ownerUid))).toEqual(['owned']);
    expect(names(informer.cache.byIndex('color', 'red'))).toEqual(['free', 'owned']);
    expect(informer.cache.byIndex('color', 'blue')).toEqual([]);
    expect(() => informer.cache.byIndex('no-such-index', 'x')).toThrow(/no index named/);

    await informerTest.client.patch(Resources.ConfigMap, { namespace: 'idx-b', name: 'free' }, { type: 'merge', patch: { metadata: { labels: { color: 'blue' } } } });
    await informerTest.client.delete(Resources.ConfigMap, { namespace: 'idx-a', name: 'owned' });
    await waitFor(() => informer.cache.byIndex('color', 'blue').length === 1 && informer.cache.byIndex(CONTROLLER_OWNER_INDEX, ownerUid).length === 0, {
      what: 'indexes to follow the changes',
      timeoutMs: 15_000,
    });
    expect(informer.cache.byIndex('color', 'red')).toEqual([]);
    expect(names(informer.cache.byIndex(NAMESPACE_INDEX, 'idx-a'))).toEqual(['owner']);
  });

  it('sees only its namespace, label selector and field selector, and drops objects that leave the selection', async () => {
    await createNamespace(informerTest.client, 'scope-a');
    await createNamespace(informerTest.client, 'scope-b');
    const factory = newFactory();
    const inNamespace = factory.informerFor(Resources.ConfigMap, { namespace: 'scope-a' });
    const byLabel = factory.informerFor(Resources.ConfigMap, { labelSelector: 'scope=yes' });
    const byField = factory.informerFor(Resources.ConfigMap, { namespace: 'scope-b', fieldSelector: 'metadata.name=picked' });
    factory.start();
    await factory.waitForSync(30_000);
    const byLabelEvents = recordEvents(byLabel).events;

    await informerTest.client.create(Resources.ConfigMap, configMap('scope-a', 'one', { labels: { scope: 'yes' } }));
    await informerTest.client.create(Resources.ConfigMap, configMap('scope-b', 'two'));
    await informerTest.client.create(Resources.ConfigMap, configMap('scope-b', 'picked', { labels: { scope: 'yes' } }));
    await waitFor(() => byField.cache.get('scope-b/picked') !== undefined && byLabel.cache.size === 2 && inNamespace.cache.get('scope-a/one'), {
      what: 'the scoped informers to see their objects',
      timeoutMs: 15_000,
    });
    expect(inNamespace.cache.keys().filter((key) => key !== `scope-a/${ROOT_CA}`)).toEqual(['scope-a/one']);
    expect(byLabel.cache.keys().sort()).toEqual(['scope-a/one', 'scope-b/picked']);
    expect(byField.cache.keys()).toEqual(['scope-b/picked']);

    // Relabelled out of the selection: the watch reports it deleted, and it leaves the cache.
    await informerTest.client.patch(Resources.ConfigMap, { namespace: 'scope-a', name: 'one' }, { type: 'merge', patch: { metadata: { labels: { scope: 'no' } } } });
    await waitFor(() => byLabel.cache.get('scope-a/one') === undefined, { what: 'one to leave the label selection', timeoutMs: 15_000 });
    expect(byLabelEvents.filter((event) => event.name === 'one').map((event) => event.type)).toEqual(['add', 'delete']);
    // The namespace informer still has it, relabelled.
    await waitFor(() => inNamespace.cache.get('scope-a/one')?.metadata?.labels?.scope === 'no', {
      what: 'the namespace informer to see the new label',
      timeoutMs: 15_000,
    });
  });

  it('hands out one informer per resource and scope, and starts late requests on a started factory', async () => {
    await createNamespace(informerTest.client, 'shared');
    const factory = newFactory();
    const first = factory.informerFor(Resources.ConfigMap, { namespace: 'shared' });
    expect(factory.informerFor(Resources.ConfigMap, { namespace: 'shared' })).toBe(first);
    expect(factory.informerFor(Resources.ConfigMap, { namespace: 'shared', labelSelector: '' })).toBe(first);
    expect(factory.informerFor(Resources.ConfigMap, { namespace: 'shared', labelSelector: 'a=b' })).not.toBe(first);
    expect(factory.informerFor(Resources.Secret, { namespace: 'shared' })).not.toBe(first);
    factory.start();
    await factory.waitForSync(30_000);

    const late = factory.informerFor(Resources.ConfigMap, { namespace: 'shared', fieldSelector: 'metadata.name=late' });
    await late.waitForSync(30_000);
    expect(late.synced).toBe(true);
    const listsBefore = informerTest.client.requestCounts().list;
    factory.informerFor(Resources.ConfigMap, { namespace: 'shared' });
    expect(informerTest.client.requestCounts().list).toBe(listsBefore);
  });

  it('replays the cache to a handler added later, and survives handlers that throw', async () => {
    await createNamespace(informerTest.client, 'handlers');
    await informerTest.client.create(Resources.ConfigMap, configMap('handlers', 'early'));
    const informer = newFactory().informerFor(Resources.ConfigMap, { namespace: 'handlers' });
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('handler bug on add');
      },
      onUpdate: () => {
        throw new Error('handler bug on update');
      },
    });
    informer.start();
    await informer.waitForSync(30_000);

    const late = recordEvents(informer);
    expect(late.events.map((event) => [event.type, event.name, event.flag])).toContainEqual(['add', 'early', true]);
    late.events.length = 0;

    await informerTest.client.create(Resources.ConfigMap, configMap('handlers', 'after'));
    await informerTest.client.patch(Resources.ConfigMap, { namespace: 'handlers', name: 'early' }, { type: 'merge', patch: { data: { x: 'y' } } });
    // The test's own ConfigMaps only: kube-controller-manager publishes kube-root-ca.crt into every new namespace
    // whenever it gets to it, before or after the handler was added.
    const ours = (): { type: string; name: string }[] => late.events.filter((event) => event.name !== ROOT_CA);
    await waitFor(() => ours().length >= 2, { what: 'the healthy handler to hear both changes', timeoutMs: 15_000 });
    expect(ours().map((event) => [event.type, event.name])).toEqual([
      ['add', 'after'],
      ['update', 'early'],
    ]);
    const handlerErrors = log.lines.filter((line) => line.msg === 'event handler threw; the informer carries on' && line.informer === informer.description);
    expect(handlerErrors.map((line) => (line.err as { message: string }).message)).toEqual(
      expect.arrayContaining(['handler bug on add', 'handler bug on update']),
    );
    expect(informer.watchRestarts).toEqual({ timeout: 0, gone: 0, error: 0, inactivity: 0 });

    late.stop();
    await informerTest.client.create(Resources.ConfigMap, configMap('handlers', 'unheard'));
    await waitFor(() => informer.cache.get('handlers/unheard'), { what: 'unheard to be cached', timeoutMs: 15_000 });
    expect(ours()).toHaveLength(2);
  });

  it('caches an object as received when the transform throws on it, and carries on', async () => {
    await createNamespace(informerTest.client, 'transform');
    await informerTest.client.create(Resources.ConfigMap, configMap('transform', 'fine'));
    await informerTest.client.create(Resources.ConfigMap, configMap('transform', 'awkward'));
    const informer = newFactory({
      transform: (obj) => {
        if (obj.metadata?.name === 'awkward') throw new Error('cannot transform awkward');
        if (obj.metadata) obj.metadata.labels = { transformed: 'yes' };
        return obj;
      },
    }).informerFor(Resources.ConfigMap, { namespace: 'transform' });
    informer.start();
    await informer.waitForSync(30_000);
    expect(informer.cache.get('transform/fine')?.metadata?.labels).toEqual({ transformed: 'yes' });
    expect(informer.cache.get('transform/awkward')?.metadata?.labels).toBeUndefined();
    expect(Object.isFrozen(informer.cache.get('transform/awkward'))).toBe(true);
    expect(log.lines.some((line) => line.msg.startsWith('transform threw') && line.name === 'awkward')).toBe(true);
  });

  it('replays the cache as updates with old === new when periodic resync is on', async () => {
    await createNamespace(informerTest.client, 'resync');
    await informerTest.client.create(Resources.ConfigMap, configMap('resync', 'r'));
    const informer = newFactory({ resyncPeriodMs: 300 }).informerFor(Resources.ConfigMap, { namespace: 'resync' });
    const { events } = recordEvents(informer);
    informer.start();
    await informer.waitForSync(30_000);
    await waitFor(() => events.filter((event) => event.type === 'update' && event.name === 'r').length >= 2, {
      what: 'two resyncs of r',
      timeoutMs: 10_000,
    });
    for (const event of events.filter((candidate) => candidate.type === 'update')) expect(event.oldObject).toBe(event.object);
  });

  it('rejects waitForSync with a message naming the informer that did not sync, and reports it unhealthy', async () => {
    const missing = defineResource({ group: 'nope.example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true });
    const factory = newFactory();
    const informer = factory.informerFor(missing, { namespace: 'default', labelSelector: 'app=x' });
    factory.start();
    const failure = await factory.waitForSync(1_500).catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/gizmos\.nope\.example\.com in namespace default with labels app=x did not sync within 1500 ms/);
    expect((failure as Error).message).toContain('404');
    const health = informer.health();
    expect(health.status).toBe('not-synced');
    expect(health.consecutiveFailures).toBeGreaterThan(0);
    await informer.stop();
    await expect(informer.waitForSync(1_000)).rejects.toThrow(/was stopped before it synced/);
    expect(() => {
      informer.start();
    }).toThrow(/was stopped/);
  });

  it('reports health: ok while the watch is alive, stale past the threshold', async () => {
    const informer = newFactory().informerFor(Resources.ConfigMap, { namespace: 'default' });
    expect(informer.health().status).toBe('not-synced');
    informer.start();
    await informer.waitForSync(30_000);
    const healthy = informer.health();
    expect(healthy).toMatchObject({ status: 'ok', synced: true, consecutiveFailures: 0, lastError: undefined });
    expect(healthy.lastEventAgeSeconds).toBeLessThan(60);
    // With a 10 ms threshold, any quiet moment makes it stale.
    await waitFor(() => informer.health(10).status === 'stale', { what: 'a stale verdict', timeoutMs: 5_000, intervalMs: 5 });
  });
});
