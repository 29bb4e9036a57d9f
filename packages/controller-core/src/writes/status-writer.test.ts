import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/errors.ts';
import type { ApplyConfiguration } from '../client/kube-client.ts';
import { defineResource, type ResourceRef } from '../client/resources.ts';
import type { Condition } from '../conditions.ts';
import { OwnWrites } from './own-writes.ts';
import { nextStatus, StatusWriter, type ConditionedStatus } from './status-writer.ts';

interface Gadget extends KubernetesObject {
  status?: ConditionedStatus & { phase?: string };
}
const GadgetResource = defineResource<Gadget>({ group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true });

const T1 = new Date('2026-03-01T10:00:00Z');
const T2 = new Date('2026-03-01T11:00:00Z');

const ready: Condition = { type: 'Ready', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2026-03-01T10:00:00Z', observedGeneration: 3 };

function gadget(status?: Gadget['status']): Gadget {
  return Object.freeze({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { namespace: 'ns', name: 'g', resourceVersion: '7' }, ...(status && { status }) });
}

/** Records each status write and answers like the API server, with the object's UID and a new resourceVersion. */
function fakeClient(answer?: Error) {
  const written: KubernetesObject[] = [];
  return {
    written,
    applyStatus<T extends KubernetesObject>(_ref: ResourceRef<T>, obj: ApplyConfiguration<T>): Promise<T> {
      written.push(obj as KubernetesObject);
      if (answer) return Promise.reject(answer);
      const { metadata, ...rest } = structuredClone(obj) as KubernetesObject;
      return Promise.resolve({ ...rest, metadata: { name: metadata?.name, namespace: metadata?.namespace, uid: 'uid-1', resourceVersion: String(100 + written.length) } } as T);
    },
  };
}

describe('nextStatus', () => {
  it('sets conditions, observedGeneration and fields, stamping new conditions with now', () => {
    const status = nextStatus<NonNullable<Gadget['status']>>(undefined, {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      observedGeneration: 3,
      fields: { phase: 'Running' },
      now: T1,
    });
    expect(status).toEqual({ phase: 'Running', observedGeneration: 3, conditions: [ready] });
  });

  it('moves lastTransitionTime only when a condition’s status moves', () => {
    const sameStatus = nextStatus({ conditions: [ready] }, { conditions: [{ type: 'Ready', status: 'True', reason: 'StillAvailable' }], now: T2 });
    expect(sameStatus.conditions[0]).toMatchObject({ reason: 'StillAvailable', lastTransitionTime: '2026-03-01T10:00:00Z' });
    const flipped = nextStatus({ conditions: [ready] }, { conditions: [{ type: 'Ready', status: 'False', reason: 'Down' }], now: T2 });
    expect(flipped.conditions[0]).toMatchObject({ status: 'False', lastTransitionTime: '2026-03-01T11:00:00Z' });
  });

  it('keeps conditions and fields the update does not name, and lets a condition keep its own generation', () => {
    const current = { phase: 'Running', observedGeneration: 3, conditions: [ready] };
    const status = nextStatus(current, {
      conditions: [{ type: 'Degraded', status: 'False', reason: 'AsExpected', observedGeneration: 2 }],
      observedGeneration: 4,
      now: T2,
    });
    expect(status).toEqual({
      phase: 'Running',
      observedGeneration: 4,
      conditions: [ready, { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '', observedGeneration: 2, lastTransitionTime: '2026-03-01T11:00:00Z' }],
    });
    expect(current.conditions).toEqual([ready]);
  });
});

describe('StatusWriter', () => {
  it('writes a changed status and skips one equal to the current status, whatever the key order', async () => {
    const client = fakeClient();
    const writer = new StatusWriter(client);
    const stored = await writer.write(GadgetResource, gadget(), { phase: 'Running', observedGeneration: 3 });
    expect(stored.metadata?.resourceVersion).toBe('101');
    expect(client.written).toEqual([{ metadata: { namespace: 'ns', name: 'g' }, status: { phase: 'Running', observedGeneration: 3 } }]);

    const current = gadget({ phase: 'Running', observedGeneration: 3 });
    expect(await writer.write(GadgetResource, current, { observedGeneration: 3, phase: 'Running' })).toBe(current);
    expect({ writes: writer.writes, skipped: writer.skipped }).toEqual({ writes: 1, skipped: 1 });
  });

  it('writes conditions only when setStatusCondition changes them', async () => {
    const client = fakeClient();
    const writer = new StatusWriter(client);
    const update = { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] as const, observedGeneration: 3, now: T1 };
    await writer.writeConditions(GadgetResource, gadget({ observedGeneration: 3, conditions: [ready] }), update);
    await writer.writeConditions(GadgetResource, gadget({ observedGeneration: 2, conditions: [ready] }), update);
    expect({ writes: writer.writes, skipped: writer.skipped }).toEqual({ writes: 1, skipped: 1 });
  });

  it('applies only name, namespace and status, as the controller\'s field manager', async () => {
    const client = fakeClient();
    await new StatusWriter(client, { fieldManager: 'gadget-operator' }).write(GadgetResource, gadget(), { phase: 'Running' });
    expect(client.written).toEqual([{ metadata: { namespace: 'ns', name: 'g' }, status: { phase: 'Running' } }]);
  });

  describe('a reconcile that runs before the cache shows the previous write', () => {
    /** The object as a cache holds it: with the UID and resourceVersion the writer keys its record on. */
    const cached = (resourceVersion: string, status?: Gadget['status']): Gadget =>
      Object.freeze({ ...gadget(status), metadata: { namespace: 'ns', name: 'g', uid: 'uid-1', resourceVersion } });

    it('does not send the same status again for the same cached version', async () => {
      const client = fakeClient();
      const writer = new StatusWriter(client);
      const stale = cached('7');
      const stored = await writer.write(GadgetResource, stale, { phase: 'Running' });
      expect(await writer.write(GadgetResource, stale, { phase: 'Running' })).toEqual(stored);
      expect({ sent: client.written.length, writes: writer.writes, skipped: writer.skipped }).toEqual({ sent: 1, writes: 1, skipped: 1 });
    });

    it('does not send the same conditions again a second later, when only lastTransitionTime would differ', async () => {
      const client = fakeClient();
      const writer = new StatusWriter(client);
      const stale = cached('7');
      const ready = { type: 'Ready', status: 'True', reason: 'Available' } as const;
      await writer.writeConditions(GadgetResource, stale, { conditions: [ready], now: T1 });
      await writer.writeConditions(GadgetResource, stale, { conditions: [ready], now: T2 });
      expect(client.written).toHaveLength(1);

      // A real change on top of the unconfirmed write keeps the Ready condition's transition time from T1.
      await writer.writeConditions(GadgetResource, stale, { conditions: [{ ...ready, message: 'reworded' }], now: T2 });
      expect((client.written[1] as Gadget).status?.conditions?.[0]).toMatchObject({ message: 'reworded', lastTransitionTime: '2026-03-01T10:00:00Z' });
    });

    it('sends a different status at once', async () => {
      const client = fakeClient();
      const writer = new StatusWriter(client);
      const stale = cached('7');
      await writer.write(GadgetResource, stale, { phase: 'Running' });
      await writer.write(GadgetResource, stale, { phase: 'Stopped' });
      expect(client.written.map((obj) => (obj as Gadget).status?.phase)).toEqual(['Running', 'Stopped']);
    });

    it('writes again when the cache shows another version without that status (someone changed it)', async () => {
      const client = fakeClient();
      const ownWrites = new OwnWrites();
      const writer = new StatusWriter(client, { ownWrites });
      await writer.write(GadgetResource, cached('7'), { phase: 'Running' });
      await writer.write(GadgetResource, cached('9', { phase: 'Reset' }), { phase: 'Running' });
      expect(client.written).toHaveLength(2);
      expect(ownWrites.size).toBe(1);
    });

    it('builds on the object it stored, and returns it when it sends nothing', async () => {
      const writer = new StatusWriter(fakeClient());
      const stored = await writer.write(GadgetResource, cached('7'), { phase: 'Running' });
      expect(await writer.write(GadgetResource, cached('7'), { phase: 'Running' })).toEqual(stored);
      // The stored copy itself, as a reader that reads own writes returns it, keeps the record.
      await writer.write(GadgetResource, stored, { phase: 'Running' });
      expect(await writer.write(GadgetResource, cached('7'), { phase: 'Running' })).toEqual(stored);
      expect(writer.writes).toBe(1);
    });

    it('keeps no record once the cache shows the write, nor after a failed write', async () => {
      const ownWrites = new OwnWrites();
      const writer = new StatusWriter(fakeClient(), { ownWrites });
      await writer.write(GadgetResource, cached('7'), { phase: 'Running' });
      expect(ownWrites.size).toBe(1);
      ownWrites.observed(GadgetResource, cached('8', { phase: 'Running' }));
      expect(ownWrites.size).toBe(0);

      const refused = new ApiError({ status: 500, body: { kind: 'Status', message: 'etcdserver: request timed out' }, request: 'PATCH x' });
      const failingRecord = new OwnWrites();
      const failing = new StatusWriter(fakeClient(refused), { ownWrites: failingRecord });
      await failing.write(GadgetResource, cached('7'), { phase: 'Running' }).catch(() => undefined);
      expect(failingRecord.size).toBe(0);
    });

    it('forgets a write the cache never showed after the time bound', async () => {
      let now = 0;
      const client = fakeClient();
      const writer = new StatusWriter(client, { ownWrites: new OwnWrites({ ttlMs: 60_000, clock: () => now }) });
      const stale = cached('7');
      await writer.write(GadgetResource, stale, { phase: 'Running' });
      now = 59_999;
      await writer.write(GadgetResource, stale, { phase: 'Running' });
      expect(client.written).toHaveLength(1);
      now = 60_000;
      await writer.write(GadgetResource, stale, { phase: 'Running' });
      expect(client.written).toHaveLength(2);
    });
  });

  it('sends the resourceVersion of what the status was computed from only when fenced', async () => {
    const client = fakeClient();
    const writer = new StatusWriter(client);
    const current = Object.freeze({ ...gadget(), metadata: { namespace: 'ns', name: 'g', uid: 'uid-1', resourceVersion: '7' } });
    const first = await writer.write(GadgetResource, current, { phase: 'Running' }, { fenced: true });
    // Computed from the stored object (as manager.reader returns it after the write), fenced on that version.
    await writer.write(GadgetResource, first, { phase: 'Stopped' }, { fenced: true });
    // Computed from the version our write replaced: fenced on that one, which the API server refuses.
    await writer.write(GadgetResource, current, { phase: 'Gone' }, { fenced: true });
    await writer.writeConditions(GadgetResource, current, { conditions: [{ type: 'Ready', status: 'False', reason: 'Gone' }] }, { fenced: true });
    await writer.write(GadgetResource, current, { phase: 'Unfenced' });
    expect(client.written.map((obj) => obj.metadata)).toEqual([
      { namespace: 'ns', name: 'g', resourceVersion: '7' },
      { namespace: 'ns', name: 'g', resourceVersion: '101' },
      { namespace: 'ns', name: 'g', resourceVersion: '7' },
      { namespace: 'ns', name: 'g', resourceVersion: '7' },
      { namespace: 'ns', name: 'g' },
    ]);
  });

  it('lets an API error surface, so the reconcile is retried', async () => {
    const refused = new ApiError({ status: 422, body: { kind: 'Status', reason: 'Invalid', message: 'status.phase: Invalid value' }, request: 'PATCH x' });
    const writer = new StatusWriter(fakeClient(refused));
    const error: unknown = await writer.write(GadgetResource, gadget(), { phase: 'Running' }).catch((e: unknown) => e);
    expect(error).toBe(refused);
    expect(writer.writes).toBe(1);
  });
});
