// Reading your own writes: the manager's reader returns what its status writers stored while the informer has not
// delivered it, and the fenced status write. Against a real API server, as operators use them.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { waitFor } from '@k8s-operators/testkit';
import { isConflict, Manager, Resources, StatusWriter } from '../src/index.ts';
import { createNamespace, installWidgetCrd, startTestCluster, WidgetResource, type TestCluster, type Widget } from './client-test-cluster.ts';

let cluster: TestCluster;
const quiet = pino({ level: 'silent' });

beforeAll(async () => {
  cluster = await startTestCluster();
  await installWidgetCrd(cluster.client);
});
afterAll(async () => {
  await cluster.stop();
});

async function namespace(name: string): Promise<string> {
  await createNamespace(cluster.client, name);
  return name;
}

function widget(namespace: string, name: string): Promise<Widget> {
  return cluster.client.create(WidgetResource, { apiVersion: 'test.controller-core.dev/v1', kind: 'Widget', metadata: { name, namespace }, spec: { size: 1 } });
}

function createManager(ns: string): Promise<Manager> {
  return Manager.create({
    name: 'own-writes', kubeconfig: cluster.controlPlane.adminKubeconfig, namespace: ns, logger: quiet,
    healthProbeBindAddress: '0', metricsBindAddress: '0', leaderElection: { enabled: false },
  });
}

describe('manager.reader reads the manager\'s own status writes', () => {
  test('a reconcile right after a status write reads the new status while the informer has not delivered it', async () => {
    const ns = await namespace('own-writes');
    await widget(ns, 'w');
    await cluster.client.create(Resources.ConfigMap, { metadata: { name: 'w', namespace: ns }, data: { phase: 'One' } });
    const manager = await createManager(ns);
    const writer = manager.statusWriter('own-writes');
    // What each reconcile that found the ConfigMap's phase Two read as the Widget's status; it writes that phase.
    const read: (string | undefined)[] = [];
    manager.controller('widgets')
      .for(WidgetResource)
      .watches(Resources.ConfigMap, (cm) => [`${cm.metadata?.namespace ?? ''}/${cm.metadata?.name ?? ''}`])
      .complete(async ({ request }) => {
        const current = await manager.reader.get(WidgetResource, request);
        const cm = await manager.reader.get(Resources.ConfigMap, request);
        if (current === undefined || cm === undefined) return undefined;
        if (cm.data?.phase === 'Two') read.push(current.status?.phase);
        await writer.write(WidgetResource, current, { phase: cm.data?.phase ?? '' });
        return undefined;
      });
    const done = manager.start();
    done.catch(() => undefined);
    const phase = async (): Promise<string | undefined> => (await manager.reader.get(WidgetResource, { namespace: ns, name: 'w' }))?.status?.phase;
    await waitFor(async () => (await phase()) === 'One', { what: 'the first status to be written' });
    const widgets = manager.informerFor(WidgetResource);
    await waitFor(() => widgets.cache.get(`${ns}/w`)?.status?.phase === 'One', { what: 'the informer to deliver the first status' });

    // From here the Widget's informer delivers nothing, as a watch that lags behind the write.
    await widgets.stop();
    const before = widgets.cache.get(`${ns}/w`);
    await cluster.client.patch(Resources.ConfigMap, { namespace: ns, name: 'w' }, { type: 'merge', patch: { data: { phase: 'Two' } } });
    const stored = await waitFor(async () => {
      const onServer = await cluster.client.get(WidgetResource, { namespace: ns, name: 'w' });
      return onServer?.status?.phase === 'Two' ? onServer : undefined;
    }, { what: 'the reconcile to write the second status' });
    // An owned object's event wakes the next reconcile before the Widget's own event arrives.
    await cluster.client.patch(Resources.ConfigMap, { namespace: ns, name: 'w' }, { type: 'merge', patch: { metadata: { labels: { touched: 'yes' } } } });
    await waitFor(() => read.length === 2, { what: 'the next reconcile' });

    expect(read).toEqual(['One', 'Two']);
    expect(widgets.cache.get(`${ns}/w`)).toBe(before);
    expect(writer.writes).toBe(2);
    const seen = await manager.reader.get(WidgetResource, { namespace: ns, name: 'w' });
    // The stored object as a cache holds one: same version, frozen, without managedFields.
    expect(seen?.metadata?.resourceVersion).toBe(stored.metadata?.resourceVersion);
    expect(Object.isFrozen(seen)).toBe(true);
    expect(seen?.metadata?.managedFields).toBeUndefined();
    expect((await manager.reader.list(WidgetResource, { namespace: ns })).map((w) => w.status?.phase)).toEqual(['Two']);

    manager.stop();
    await done;
  });

  test('reads what the cache shows once it shows any other version, and nothing once the object is deleted', async () => {
    const ns = await namespace('own-writes-end');
    await widget(ns, 'w');
    const manager = await createManager(ns);
    manager.controller('widgets').for(WidgetResource).complete(() => Promise.resolve(undefined));
    const done = manager.start();
    done.catch(() => undefined);
    const key = { namespace: ns, name: 'w' };
    const cached = await waitFor(() => manager.reader.get(WidgetResource, key), { what: 'the Widget in the cache' });

    await manager.statusWriter('own-writes').write(WidgetResource, cached, { phase: 'Ours' });
    expect((await manager.reader.get(WidgetResource, key))?.status?.phase).toBe('Ours');
    // Someone else writes after us: the cache shows their version, whichever way the events come.
    await cluster.client.patchStatus(WidgetResource, key, { type: 'merge', patch: { status: { phase: 'Theirs' } } });
    await waitFor(async () => (await manager.reader.get(WidgetResource, key))?.status?.phase === 'Theirs', { what: 'the reader to show the other writer\'s status' });
    expect(manager.informerFor(WidgetResource).cache.get(`${ns}/w`)?.status?.phase).toBe('Theirs');

    const latest = await waitFor(() => manager.reader.get(WidgetResource, key), { what: 'the Widget' });
    await manager.statusWriter('own-writes').write(WidgetResource, latest, { phase: 'Last' });
    await cluster.client.delete(WidgetResource, key);
    await waitFor(async () => (await manager.reader.get(WidgetResource, key)) === undefined, { what: 'the reader to show the Widget gone' });

    manager.stop();
    await done;
  });
});

describe('manager.applyOwned', () => {
  test('a reconcile before the watch delivers the object it created reads that object and applies nothing again', async () => {
    // With the priority queue the owner's second reconcile (woken by its own status or the owned object's event) runs
    // at once, ahead of the backlog, and may find the owned object not in the cache yet: it used to apply it again.
    const ns = await namespace('own-applies');
    await widget(ns, 'w');
    const manager = await createManager(ns);
    const configMaps = manager.informerFor(Resources.ConfigMap);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const seen: (string | undefined)[] = [];
    manager.controller('widgets')
      .for(WidgetResource)
      .owns(Resources.ConfigMap)
      .complete(async ({ request }) => {
        await gate;
        const owner = await manager.reader.get(WidgetResource, request);
        if (owner === undefined) return undefined;
        const current = await manager.reader.get(Resources.ConfigMap, request);
        seen.push(current?.data?.size);
        await manager.applyOwned(Resources.ConfigMap, {
          apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: request.name, namespace: ns }, data: { size: String(owner.spec?.size) },
        }, { owner, fieldManager: 'own-writes', current });
        return undefined;
      });
    const done = manager.start();
    done.catch(() => undefined);
    await waitFor(() => configMaps.synced, { what: 'the ConfigMap cache to sync' });
    // From here the ConfigMaps' informer delivers nothing, as a watch that lags behind the write.
    await configMaps.stop();
    const appliesBefore = manager.client.requestCounts().apply;
    release();
    await waitFor(() => seen.length === 1, { what: 'the first reconcile' });
    await waitFor(async () => (await cluster.client.get(Resources.ConfigMap, { namespace: ns, name: 'w' })) !== undefined, { what: 'the ConfigMap to be created' });
    // The Widget changes in a way that leaves its ConfigMap as it is: the next reconcile runs while the cache lags.
    await cluster.client.patch(WidgetResource, { namespace: ns, name: 'w' }, { type: 'merge', patch: { metadata: { labels: { touched: 'yes' } } } });
    await waitFor(() => seen.length === 2, { what: 'the second reconcile' });

    expect(seen).toEqual([undefined, '1']);
    expect(configMaps.cache.get(`${ns}/w`)).toBeUndefined();
    expect(manager.client.requestCounts().apply - appliesBefore).toBe(1);
    manager.stop();
    await done;
  });
});

describe('manager.mergePatch', () => {
  test('the reader shows the patched label at once, in gets and label-selected lists, while the informer lags', async () => {
    const ns = await namespace('own-patches');
    await cluster.client.create(Resources.ConfigMap, { metadata: { name: 'c', namespace: ns, labels: { app: 'db' } } });
    const manager = await createManager(ns);
    manager.controller('configmaps').for(Resources.ConfigMap).complete(() => Promise.resolve(undefined));
    const done = manager.start();
    done.catch(() => undefined);
    const key = { namespace: ns, name: 'c' };
    const cached = await waitFor(() => manager.reader.get(Resources.ConfigMap, key), { what: 'the ConfigMap in the cache' });
    const configMaps = manager.informerFor(Resources.ConfigMap);
    // From here the informer delivers nothing, as a watch that lags behind the patch.
    await configMaps.stop();

    const stored = await manager.mergePatch(Resources.ConfigMap, cached, { metadata: { labels: { ready: 'ok' } } });
    expect(stored.metadata?.labels).toEqual({ app: 'db', ready: 'ok' });
    expect(configMaps.cache.get(`${ns}/c`)?.metadata?.labels).toEqual({ app: 'db' });
    expect((await manager.reader.get(Resources.ConfigMap, key))?.metadata?.labels).toEqual({ app: 'db', ready: 'ok' });
    expect((await manager.reader.list(Resources.ConfigMap, { namespace: ns, matchingLabels: { ready: 'ok' } })).map((c) => c.metadata?.name)).toEqual(['c']);

    manager.stop();
    await done;
  });
});

describe('a fenced status write', () => {
  test('is refused with 409 when computed from a version that has been changed since, by anyone, ourselves included', async () => {
    const ns = await namespace('fenced');
    const created = await widget(ns, 'w');
    const key = { namespace: ns, name: 'w' };
    const writer = new StatusWriter(cluster.client, { fieldManager: 'fenced-test' });

    const reserved = await writer.write(WidgetResource, created, { phase: 'Reserved' }, { fenced: true });
    // A status computed from the version before our write (a cache that lags, read without our own writes) has not
    // seen what that write recorded: refused, and the recorded status stays.
    const stale: unknown = await writer.write(WidgetResource, created, { phase: 'Creating' }, { fenced: true }).catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    // Computed from our own write, as manager.reader returns it: goes through.
    const creating = await writer.write(WidgetResource, reserved, { phase: 'Creating' }, { fenced: true });
    expect(creating.status?.phase).toBe('Creating');

    await cluster.client.patchStatus(WidgetResource, key, { type: 'merge', patch: { status: { phase: 'ChangedByOthers' } } });
    const overtaken: unknown = await writer.write(WidgetResource, creating, { phase: 'Created' }, { fenced: true }).catch((error: unknown) => error);
    expect(isConflict(overtaken)).toBe(true);
    expect((await cluster.client.get(WidgetResource, key))?.status?.phase).toBe('ChangedByOthers');

    // Computed again from what is stored now, it goes through.
    const current = await cluster.client.get(WidgetResource, key);
    if (current === undefined) throw new Error('the Widget is gone');
    expect((await writer.write(WidgetResource, current, { phase: 'Created' }, { fenced: true })).status?.phase).toBe('Created');
    expect(writer.writes).toBe(5);
  });
});
