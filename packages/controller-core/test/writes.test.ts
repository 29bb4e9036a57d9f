import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlane } from '@k8s-operators/testkit';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConflict } from '../src/client/errors.ts';
import { KubeClient } from '../src/client/kube-client.ts';
import { defineResource, Resources } from '../src/client/resources.ts';
import { conditionsSchema } from '../src/crd/conditions-schema.ts';
import { crdManifest } from '../src/crd/crd-manifest.ts';
import { defineCustomResource, type CustomResource } from '../src/crd/define-custom-resource.ts';
import { createLogger } from '../src/log.ts';
import { applyOwned, ownershipConflict } from '../src/writes/apply-owned.ts';
import { EventRecorder } from '../src/writes/event-recorder.ts';
import { ensureFinalizer, removeFinalizer } from '../src/writes/finalizers.ts';
import { StatusWriter } from '../src/writes/status-writer.ts';
import { waitForCrdServed } from './client-test-cluster.ts';

const GadgetDeclaration = defineCustomResource({
  group: 'writes.controller-core.dev',
  kind: 'Gadget',
  plural: 'gadgets',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1',
      spec: Type.Object({ size: Type.Integer() }),
      status: Type.Object({
        phase: Type.Optional(Type.String()),
        observedGeneration: Type.Optional(Type.Integer()),
        conditions: Type.Optional(conditionsSchema()),
      }),
    },
  ],
});
type Gadget = CustomResource<typeof GadgetDeclaration>;
const GadgetResource = defineResource<Gadget>({ group: 'writes.controller-core.dev', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true });

const NAMESPACE = 'writes';
const FINALIZER = 'writes.controller-core.dev/cleanup';

let dir: string | undefined;
let controlPlane: ControlPlane | undefined;
let client: KubeClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'writes-'));
  controlPlane = await ControlPlane.start({ dir });
  client = await KubeClient.load({ kubeconfig: controlPlane.adminKubeconfig });
  await client.create(Resources.Namespace, { metadata: { name: NAMESPACE } });
  const crd = crdManifest(GadgetDeclaration);
  await client.apply(Resources.CustomResourceDefinition, crd, { fieldManager: 'writes-test' });
  await waitForCrdServed(client, crd.metadata.name, GadgetResource, NAMESPACE);
});

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before it
  await client?.close();
  await controlPlane?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function createGadget(name: string): Promise<Gadget> {
  return client.create(GadgetResource, { apiVersion: GadgetDeclaration.apiVersion, kind: 'Gadget', metadata: { name, namespace: NAMESPACE }, spec: { size: 1 } });
}

async function read(name: string): Promise<Gadget> {
  const gadget = await client.get(GadgetResource, { namespace: NAMESPACE, name });
  if (gadget === undefined) throw new Error(`gadget ${name} is gone`);
  return gadget;
}

describe('StatusWriter against the API server', () => {
  it('writes a status once, then not at all while it stays the same', async () => {
    const writer = new StatusWriter(client, { fieldManager: 'writes-test' });
    let gadget = await createGadget('steady');
    const createdVersion = gadget.metadata.resourceVersion;
    const update = {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'all good' }] as const,
      observedGeneration: 1,
      fields: { phase: 'Running' },
    };
    gadget = await writer.writeConditions(GadgetResource, gadget, update);
    const writtenVersion = gadget.metadata.resourceVersion;
    expect(writtenVersion).not.toBe(createdVersion);
    expect(gadget.status).toMatchObject({ phase: 'Running', observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] });

    for (let reconcile = 0; reconcile < 5; reconcile++) {
      const current = await read('steady');
      expect(await writer.writeConditions(GadgetResource, current, update)).toBe(current);
    }
    expect({ writes: writer.writes, skipped: writer.skipped }).toEqual({ writes: 1, skipped: 5 });
    expect((await read('steady')).metadata.resourceVersion).toBe(writtenVersion);
  });

  it('moves lastTransitionTime only when the condition’s status moves', async () => {
    const writer = new StatusWriter(client);
    const readyAt = (gadget: Gadget) => gadget.status?.conditions?.find((condition) => condition.type === 'Ready')?.lastTransitionTime;
    await createGadget('flapping');
    await writer.writeConditions(GadgetResource, await read('flapping'), {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      now: new Date('2026-03-01T10:00:00Z'),
    });
    await writer.writeConditions(GadgetResource, await read('flapping'), {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'now with a message' }],
      now: new Date('2026-03-01T11:00:00Z'),
    });
    const reworded = await read('flapping');
    expect(reworded.status?.conditions?.[0]?.message).toBe('now with a message');
    expect(readyAt(reworded)).toBe('2026-03-01T10:00:00Z');

    await writer.writeConditions(GadgetResource, reworded, {
      conditions: [{ type: 'Ready', status: 'False', reason: 'Unavailable' }],
      now: new Date('2026-03-01T12:00:00Z'),
    });
    expect(readyAt(await read('flapping'))).toBe('2026-03-01T12:00:00Z');
    expect(writer.writes).toBe(3);
  });

  it('does not conflict with its own earlier write when the cache has not caught up (no resourceVersion is sent)', async () => {
    const writer = new StatusWriter(client, { fieldManager: 'gadget-operator' });
    const cached = await createGadget('raced');
    await writer.write(GadgetResource, cached, { phase: 'First' });
    // A second reconcile still holds the object as it was before the first write.
    await writer.write(GadgetResource, cached, { phase: 'Second' });
    expect((await read('raced')).status?.phase).toBe('Second');
    expect(writer.writes).toBe(2);
  });
});

describe('applyOwned and ownershipConflict against the API server', () => {
  it('sets the controller reference and is idempotent', async () => {
    const owner = await createGadget('owner');
    const desired = { metadata: { name: 'owner-settings', namespace: NAMESPACE, labels: { app: 'owner' } }, data: { size: '1' } };
    const applied = await applyOwned(client, Resources.ConfigMap, desired, { owner, fieldManager: 'writes-test' });
    expect(applied.metadata?.ownerReferences).toEqual([
      { apiVersion: GadgetDeclaration.apiVersion, kind: 'Gadget', name: 'owner', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(applied.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation])).toEqual([['writes-test', 'Apply']]);
    expect(ownershipConflict(applied, owner)).toBeUndefined();

    const again = await applyOwned(client, Resources.ConfigMap, desired, { owner, fieldManager: 'writes-test' });
    expect(again.metadata?.resourceVersion).toBe(applied.metadata?.resourceVersion);
  });

  it('detects an object of the name that the owner does not control', async () => {
    const owner = await createGadget('late-owner');
    const otherOwner = await createGadget('other-owner');
    await client.create(Resources.ConfigMap, { metadata: { name: 'handmade', namespace: NAMESPACE }, data: { by: 'hand' } });
    await applyOwned(client, Resources.ConfigMap, { metadata: { name: 'taken', namespace: NAMESPACE } }, { owner: otherOwner, fieldManager: 'writes-test' });

    const handmade = await client.get(Resources.ConfigMap, { namespace: NAMESPACE, name: 'handmade' });
    expect(ownershipConflict(handmade, owner)).toBe(
      'ConfigMap writes/handmade already exists and is not controlled by Gadget writes/late-owner; delete or rename it ' +
        'so Gadget writes/late-owner can manage it',
    );
    const taken = await client.get(Resources.ConfigMap, { namespace: NAMESPACE, name: 'taken' });
    expect(ownershipConflict(taken, owner)).toBe(
      'ConfigMap writes/taken already exists and is controlled by Gadget other-owner, not by Gadget writes/late-owner',
    );
    expect(ownershipConflict(await client.get(Resources.ConfigMap, { namespace: NAMESPACE, name: 'absent' }), owner)).toBeUndefined();
  });
});

describe('finalizers against the API server', () => {
  it('adds a finalizer once, and refuses to overwrite a list changed since the object was read', async () => {
    const gadget = await createGadget('guarded');
    const added = await ensureFinalizer(client, GadgetResource, gadget, FINALIZER);
    expect(added.metadata.finalizers).toEqual([FINALIZER]);
    const patchesBefore = client.requestCounts().patch;
    expect(await ensureFinalizer(client, GadgetResource, added, FINALIZER)).toBe(added);
    expect(client.requestCounts().patch).toBe(patchesBefore);

    // Another controller adds its finalizer; our copy is now stale, and a blind write would drop theirs.
    const theirs = await ensureFinalizer(client, GadgetResource, added, 'other.example.com/cleanup');
    const error: unknown = await removeFinalizer(client, GadgetResource, added, FINALIZER).catch((e: unknown) => e);
    expect(isConflict(error)).toBe(true);
    expect((await read('guarded')).metadata.finalizers).toEqual([FINALIZER, 'other.example.com/cleanup']);

    const removed = await removeFinalizer(client, GadgetResource, theirs, FINALIZER);
    expect(removed?.metadata.finalizers).toEqual(['other.example.com/cleanup']);
  });

  it('lets a deleted object go when its last finalizer is removed, and treats a gone object as done', async () => {
    const gadget = await ensureFinalizer(client, GadgetResource, await createGadget('doomed'), FINALIZER);
    await client.delete(GadgetResource, { namespace: NAMESPACE, name: 'doomed' });
    const deleting = await read('doomed');
    expect(deleting.metadata.deletionTimestamp).toBeTruthy();

    await removeFinalizer(client, GadgetResource, deleting, FINALIZER);
    expect(await client.get(GadgetResource, { namespace: NAMESPACE, name: 'doomed' })).toBeUndefined();
    expect(await removeFinalizer(client, GadgetResource, gadget, FINALIZER)).toBeUndefined();
  });
});

describe('EventRecorder against the API server', () => {
  it('aggregates identical events into one Event with a series, and keeps different reasons apart', async () => {
    const regarding = await createGadget('eventful');
    const logLines: string[] = [];
    const recorder = new EventRecorder(client, {
      reportingController: 'writes.controller-core.dev/gadget-controller',
      reportingInstance: 'writes-test-0',
      logger: createLogger({ destination: { write: (line: string) => logLines.push(line) } }),
    });
    const failed = { type: 'Warning', reason: 'SyncFailed', action: 'Sync', note: 'backend unreachable' } as const;

    recorder.event(regarding, failed);
    await recorder.flush();
    for (let repeat = 0; repeat < 9; repeat++) recorder.event(regarding, failed);
    recorder.event(regarding, { type: 'Normal', reason: 'Synced', action: 'Sync', note: 'backend reachable again' });
    recorder.event(regarding, { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'size 1' });
    await recorder.flush();

    const events = (await client.list(Resources.Event, { namespace: NAMESPACE })).items.filter((event) => event.regarding?.uid === regarding.metadata.uid);
    const byReason = new Map(events.map((event) => [event.reason, event]));
    expect(events).toHaveLength(3);
    expect(byReason.get('SyncFailed')).toMatchObject({
      type: 'Warning',
      action: 'Sync',
      note: 'backend unreachable',
      reportingController: 'writes.controller-core.dev/gadget-controller',
      reportingInstance: 'writes-test-0',
      regarding: { kind: 'Gadget', name: 'eventful', namespace: NAMESPACE },
      series: { count: 10 },
    });
    expect(byReason.get('Synced')?.series).toBeUndefined();
    expect(byReason.get('Scaled')?.series).toBeUndefined();
    expect(logLines).toEqual([]);
  });
});
