import { randomUUID } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { waitFor } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';
import { Resources } from '../src/client/resources.ts';
import type { SharedInformerFactory } from '../src/informer/informer-factory.ts';
import type { WatchEndReason } from '../src/informer/reflector.ts';
import type { InformerMetricsSink, SharedInformer } from '../src/informer/shared-informer.ts';
import { createNamespace } from './client-test-cluster.ts';
import { useInformerTestCluster } from './informer-test-cluster.ts';
import { recordEvents, type RecordedEvent } from './informer-test-recorder.ts';

/**
 * The informer against the failures that break other Node informers: a restarted API server (every watch cut), a
 * compacted etcd (410 Gone and a relist), and a watch that goes silent. Changes are also made while the API server is
 * down, by writing to etcd directly (the API server reads JSON from etcd as well as protobuf), so that only a correct
 * resume or relist can find them.
 */

const informerTest = useInformerTestCluster();
const { log, newFactory } = informerTest;

function recordingMetrics(): InformerMetricsSink & { restarts: [string, WatchEndReason][]; relists: string[]; reporting: Set<string> } {
  const restarts: [string, WatchEndReason][] = [];
  const relists: string[] = [];
  const reporting = new Set<string>();
  return {
    restarts,
    relists,
    reporting,
    onWatchRestart: (resource, reason) => restarts.push([resource, reason]),
    onRelist: (resource) => relists.push(resource),
    reportLastEvent: (resource) => {
      reporting.add(resource);
      return () => reporting.delete(resource);
    },
  };
}

function startInformer(namespace: string, options: ConstructorParameters<typeof SharedInformerFactory>[1] = {}) {
  const factory = newFactory(options);
  const informer = factory.informerFor(Resources.ConfigMap, { namespace });
  const recorder = recordEvents(informer);
  factory.start();
  return { factory, informer, events: recorder.events };
}

/**
 * A new namespace with `count` ConfigMaps (`<prefix>0`, `<prefix>1`, ..., data `v: '0'`) and a synced informer on it,
 * reporting to recording metrics.
 */
async function syncedOverConfigMaps(namespace: string, prefix: string, count: number) {
  await createNamespace(informerTest.client, namespace);
  for (let i = 0; i < count; i++) await informerTest.client.create(Resources.ConfigMap, { metadata: { name: `${prefix}${i}`, namespace }, data: { v: '0' } });
  const metrics = recordingMetrics();
  const { informer, events } = startInformer(namespace, { metrics });
  await informer.waitForSync(30_000);
  return { metrics, informer, events };
}

/** Writes a ConfigMap straight into etcd, as the API server stores it (minus resourceVersion, which etcd supplies). */
async function etcdPut(cm: { metadata: { name: string; namespace: string; resourceVersion?: string; [field: string]: unknown }; data: Record<string, string> }): Promise<void> {
  const { resourceVersion: _ignored, ...metadata } = cm.metadata;
  const stored = { apiVersion: 'v1', kind: 'ConfigMap', ...cm, metadata };
  await etcd('/v3/kv/put', { key: etcdKey(metadata.namespace, metadata.name), value: base64(JSON.stringify(stored)) });
}

async function etcdDelete(namespace: string, name: string): Promise<void> {
  await etcd('/v3/kv/deleterange', { key: etcdKey(namespace, name) });
}

function etcdKey(namespace: string, name: string): string {
  return base64(`/registry/configmaps/${namespace}/${name}`);
}

function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

async function etcd(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${informerTest.cluster.controlPlane.etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`etcd ${path}: ${response.status} ${await response.text()}`);
}

function newConfigMap(namespace: string, name: string, data: Record<string, string>) {
  return { metadata: { name, namespace, uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }, data };
}

/** Waits until the informer's cache holds exactly what the API server has, object for object. */
async function waitForConvergence(informer: SharedInformer<KubernetesObject>, namespace: string): Promise<void> {
  const versions = (objects: KubernetesObject[]): string[] =>
    objects.map((obj) => `${obj.metadata?.name ?? ''}@${obj.metadata?.resourceVersion ?? ''}`).sort();
  await waitFor(
    async () => {
      const server = await informerTest.client.list(Resources.ConfigMap, { namespace });
      return JSON.stringify(versions(informer.cache.list(namespace))) === JSON.stringify(versions(server.items));
    },
    { what: `the cache of ${namespace} to match the API server`, timeoutMs: 60_000, intervalMs: 200 },
  );
}

/** Restarts the API server and, once the informer has found it gone, runs `whileDown` (etcd writes). */
async function restartApiServer(informer: SharedInformer<KubernetesObject>, whileDown: () => Promise<void>): Promise<void> {
  const failuresBefore = informer.watchRestarts.error;
  const restarting = informerTest.cluster.controlPlane.restartApiServer();
  // A failed watch attempt means the API server refused the connection: it is down, and the informer has no watch.
  await waitFor(() => informer.watchRestarts.error > failuresBefore, { what: 'the informer to lose its watch', timeoutMs: 30_000, intervalMs: 5 });
  await whileDown();
  await restarting;
}

function summary(events: RecordedEvent[]): [string, string, boolean | undefined][] {
  return events.filter((event) => event.name !== 'kube-root-ca.crt').map((event) => [event.type, event.name, event.flag]);
}

describe('informer resilience', () => {
  it('survives an API server restart: changes made while it was down and after it came back all arrive', async () => {
    const { metrics, informer, events } = await syncedOverConfigMaps('restart', 'r', 5);
    expect(metrics.reporting.has('configmaps')).toBe(true);
    const r0 = informer.cache.get('restart/r0');
    if (r0 === undefined) throw new Error('r0 is not cached');
    events.length = 0;

    await restartApiServer(informer, async () => {
      await etcdPut({ metadata: { ...structuredClone(r0.metadata), name: 'r0', namespace: 'restart' }, data: { v: 'changed while down' } });
      await etcdDelete('restart', 'r1');
      await etcdPut(newConfigMap('restart', 'r5', { v: 'created while down' }));
    });
    await informerTest.client.patch(Resources.ConfigMap, { namespace: 'restart', name: 'r2' }, { type: 'merge', patch: { data: { v: 'changed after' } } });
    await informerTest.client.delete(Resources.ConfigMap, { namespace: 'restart', name: 'r3' });
    await informerTest.client.create(Resources.ConfigMap, { metadata: { name: 'r6', namespace: 'restart' }, data: { v: 'created after' } });

    await waitForConvergence(informer, 'restart');
    expect(informer.cache.get('restart/r0')?.data).toEqual({ v: 'changed while down' });
    expect(informer.cache.get('restart/r2')?.data).toEqual({ v: 'changed after' });
    // Every change was heard exactly once (in whichever way the informer caught up: resumed watch or relist), and the
    // untouched r4 not at all.
    const heard = summary(events).map(([type, name]) => `${type} ${name}`).sort();
    expect(heard).toEqual(['add r5', 'add r6', 'delete r1', 'delete r3', 'update r0', 'update r2']);
    const r0Update = events.find((event) => event.type === 'update' && event.name === 'r0');
    expect((r0Update?.oldObject as { data?: unknown } | undefined)?.data).toEqual({ v: '0' });
    expect(metrics.restarts.every(([resource]) => resource === 'configmaps')).toBe(true);
    expect(metrics.restarts.some(([, reason]) => reason === 'error')).toBe(true);
    await waitFor(() => informer.health().status === 'ok' && informer.health().consecutiveFailures === 0, {
      what: 'the informer to report itself healthy again',
      timeoutMs: 30_000,
    });
  });

  it('relists after compaction (410 Gone) and reports only what changed, flagging deletions it did not see', async () => {
    const { metrics, informer, events } = await syncedOverConfigMaps('compact', 'k', 10);
    const k0 = informer.cache.get('compact/k0');
    const k1 = informer.cache.get('compact/k1');
    if (k0 === undefined || k1 === undefined) throw new Error('k0/k1 are not cached');
    const unchangedBefore = new Map(informer.cache.list('compact').map((cm) => [cm.metadata?.name, cm]));
    events.length = 0;

    // Move etcd past anything the informer has seen, then compact: resuming from its resourceVersion is impossible.
    await informerTest.client.create(Resources.ConfigMap, { metadata: { name: 'elsewhere', namespace: 'default' } });
    await informerTest.cluster.controlPlane.compactEtcd();
    await restartApiServer(informer, async () => {
      await etcdPut({ metadata: { ...structuredClone(k0.metadata), name: 'k0', namespace: 'compact' }, data: { v: 'changed while down' } });
      await etcdDelete('compact', 'k1');
      await etcdPut(newConfigMap('compact', 'k10', { v: 'created while down' }));
    });
    await waitFor(() => informer.relists >= 1, { what: 'a relist', timeoutMs: 60_000 });
    await informerTest.client.patch(Resources.ConfigMap, { namespace: 'compact', name: 'k2' }, { type: 'merge', patch: { data: { v: 'changed after' } } });
    await informerTest.client.create(Resources.ConfigMap, { metadata: { name: 'k11', namespace: 'compact' }, data: { v: 'created after' } });

    await waitForConvergence(informer, 'compact');
    expect(informer.watchRestarts.gone).toBeGreaterThanOrEqual(1);
    expect(metrics.restarts).toContainEqual(['configmaps', 'gone']);
    expect(metrics.relists.length).toBe(informer.relists);
    expect(metrics.relists.every((resource) => resource === 'configmaps')).toBe(true);

    // The relist found the three changes made while no watch was open; the watch after it delivered the other two.
    // Unchanged objects were not re-announced as adds (or anything else).
    expect(summary(events).sort()).toEqual(
      [
        ['add', 'k10', false],
        ['add', 'k11', false],
        ['delete', 'k1', true],
        ['update', 'k0', undefined],
        ['update', 'k2', undefined],
      ].sort(),
    );
    const k1Delete = events.find((event) => event.type === 'delete' && event.name === 'k1');
    expect(k1Delete?.object).toBe(k1);
    const k0Update = events.find((event) => event.type === 'update' && event.name === 'k0');
    expect(k0Update?.oldObject).toBe(k0);
    // Unchanged objects are the very same cached objects as before the relist.
    for (const name of ['k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']) {
      expect(informer.cache.get(`compact/${name}`)).toBe(unchangedBefore.get(name));
    }
  });

  it('restarts a watch that hears nothing (the watchdog), resuming without a relist', async () => {
    await createNamespace(informerTest.client, 'quiet');
    const metrics = recordingMetrics();
    const { factory, informer, events } = startInformer('quiet', { metrics, inactivityTimeoutMs: 700 });
    await informer.waitForSync(30_000);
    await waitFor(() => informer.watchRestarts.inactivity >= 2, { what: 'two watchdog restarts', timeoutMs: 20_000 });
    expect(metrics.restarts).toContainEqual(['configmaps', 'inactivity']);
    expect(log.lines.some((line) => line.msg === 'watch restarted' && line.reason === 'inactivity' && line.informer === informer.description)).toBe(
      true,
    );

    await informerTest.client.create(Resources.ConfigMap, { metadata: { name: 'spoken', namespace: 'quiet' } });
    await waitFor(() => summary(events).some(([type, name]) => type === 'add' && name === 'spoken'), {
      what: 'the restarted watch to deliver a new object',
      timeoutMs: 15_000,
    });
    expect(informer.relists).toBe(0);
    expect(informer.health().status).toBe('ok');

    await factory.stop();
    expect(metrics.reporting.size).toBe(0);
  });
});
