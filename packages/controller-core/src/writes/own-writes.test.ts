import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { defineResource } from '../client/resources.ts';
import { OwnWrites } from './own-writes.ts';

interface Gadget extends KubernetesObject {
  status?: { phase?: string };
}
const GadgetResource = defineResource<Gadget>({ group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true });

/** The Gadget `ns/<name>` at `resourceVersion`, as a cache or the API server holds it. */
function gadget(resourceVersion: string, phase?: string, name = 'g', uid = 'uid-1'): Gadget {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { namespace: 'ns', name, uid, resourceVersion, managedFields: [{ manager: 'gadget-operator', operation: 'Apply' }] },
    ...(phase === undefined ? {} : { status: { phase } }),
  };
}

const key = { namespace: 'ns', name: 'g' };

describe('OwnWrites', () => {
  it('answers with the stored object while the cache holds the version the write replaced', () => {
    const own = new OwnWrites();
    const stored = gadget('8', 'Running');
    own.record(GadgetResource, gadget('7'), stored);
    const seen = own.latest(GadgetResource, key, gadget('7'));
    expect(seen?.status?.phase).toBe('Running');
    expect(seen?.metadata?.resourceVersion).toBe('8');
    // As a cache holds objects: frozen and without managedFields; the caller's object is left as it was.
    expect(Object.isFrozen(seen)).toBe(true);
    expect(seen?.metadata?.managedFields).toBeUndefined();
    expect(stored.metadata?.managedFields).toHaveLength(1);
  });

  it('follows a chain of writes made before the cache caught up with the first', () => {
    const own = new OwnWrites();
    own.record(GadgetResource, gadget('7'), gadget('8', 'Creating'));
    // The second write was computed from the first one's answer (a read of our own write).
    own.record(GadgetResource, gadget('8', 'Creating'), gadget('9', 'Running'));
    expect(own.latest(GadgetResource, key, gadget('7'))?.status?.phase).toBe('Running');
    expect(own.latest(GadgetResource, key, gadget('8', 'Creating'))?.status?.phase).toBe('Running');
    expect(own.size).toBe(1);
  });

  it('ends the record when the cache shows any other version, the object is gone, or another object took its name', () => {
    const own = new OwnWrites();
    const write = (): void => { own.record(GadgetResource, gadget('7'), gadget('8', 'Running')); };

    write();
    // Our own version: the record may end (the cache caught up) and the cache is read as it is.
    own.observed(GadgetResource, gadget('8', 'Running'));
    expect(own.size).toBe(0);

    write();
    const theirs = gadget('12', 'Reset');
    expect(own.latest(GadgetResource, key, theirs)).toBe(theirs);
    expect(own.size).toBe(0);

    write();
    expect(own.latest(GadgetResource, key, undefined)).toBeUndefined();
    expect(own.size).toBe(0);

    write();
    own.observed(GadgetResource, gadget('8', 'Running'), true);
    expect(own.size).toBe(0);

    write();
    const successor = gadget('7', undefined, 'g', 'uid-2');
    expect(own.latest(GadgetResource, key, successor)).toBe(successor);
    expect(own.size).toBe(0);
  });

  it('keeps the record while the cache holds the replaced version, or a caller holds the stored one', () => {
    const own = new OwnWrites();
    own.record(GadgetResource, gadget('7'), gadget('8', 'Running'));
    own.observed(GadgetResource, gadget('7'));
    own.latest(GadgetResource, key, gadget('8', 'Running'));
    expect(own.latest(GadgetResource, key, gadget('7'))?.status?.phase).toBe('Running');
  });

  it('answers a creation for a key the cache holds nothing at, until the cache has shown the object or its deletion', () => {
    const own = new OwnWrites();
    own.record(GadgetResource, undefined, gadget('5', 'New'));
    expect(own.latest(GadgetResource, key, undefined)?.status?.phase).toBe('New');
    // A write on top of the creation, before the cache has shown either: still nothing cached, the latest is read.
    own.record(GadgetResource, gadget('5', 'New'), gadget('6', 'Ready'));
    expect(own.latest(GadgetResource, key, undefined)?.status?.phase).toBe('Ready');
    expect(own.latest(GadgetResource, key, gadget('5', 'New'))?.status?.phase).toBe('Ready');
    // The watch delivers the object: the cache is the truth again, even if it is gone after that.
    own.observed(GadgetResource, gadget('6', 'Ready'));
    expect(own.latest(GadgetResource, key, undefined)).toBeUndefined();

    own.record(GadgetResource, undefined, gadget('9'));
    own.observed(GadgetResource, gadget('9'), true);
    expect(own.latest(GadgetResource, key, undefined)).toBeUndefined();
    // Another object under the name in the cache ends it too.
    own.record(GadgetResource, undefined, gadget('11'));
    expect(own.latest(GadgetResource, key, gadget('12', 'Theirs', 'g', 'uid-2'))?.status?.phase).toBe('Theirs');
    expect(own.latest(GadgetResource, key, undefined)).toBeUndefined();
  });

  it('records nothing for a write that changed nothing', () => {
    const own = new OwnWrites();
    own.record(GadgetResource, gadget('7', 'Running'), gadget('7', 'Running'));
    expect(own.size).toBe(0);
  });

  it('keeps records apart by resource and object', () => {
    const own = new OwnWrites();
    const Other = defineResource<Gadget>({ group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true });
    own.record(GadgetResource, gadget('7'), gadget('8', 'Running'));
    expect(own.latest(Other, key, gadget('7'))?.status).toBeUndefined();
    expect(own.latest(GadgetResource, { namespace: 'ns', name: 'h' }, gadget('7', undefined, 'h'))?.status).toBeUndefined();
    expect(own.latest(GadgetResource, key, gadget('7'))?.status?.phase).toBe('Running');
  });

  it('forgets writes the cache never showed after the time bound, and the oldest beyond the count bound', () => {
    let now = 0;
    const own = new OwnWrites({ ttlMs: 60_000, maxRecords: 3, clock: () => now });
    for (const name of ['a', 'b', 'c', 'd']) {
      now += 1_000;
      own.record(GadgetResource, gadget('7', undefined, name), gadget('8', 'Running', name));
    }
    expect(own.size).toBe(3);
    expect(own.latest(GadgetResource, { namespace: 'ns', name: 'a' }, gadget('7', undefined, 'a'))?.status).toBeUndefined();
    expect(own.latest(GadgetResource, { namespace: 'ns', name: 'b' }, gadget('7', undefined, 'b'))?.status?.phase).toBe('Running');

    now = 2_000 + 60_000;
    expect(own.latest(GadgetResource, { namespace: 'ns', name: 'c' }, gadget('7', undefined, 'c'))?.status?.phase).toBe('Running');
    // b was written at 2 s: gone at 62 s.
    expect(own.latest(GadgetResource, { namespace: 'ns', name: 'b' }, gadget('7', undefined, 'b'))?.status).toBeUndefined();
    now = 1_000_000;
    expect(own.latest(GadgetResource, key, gadget('7'))?.status).toBeUndefined();
    expect(own.size).toBe(0);
  });

  describe('a merge patch', () => {
    const labelled = (resourceVersion: string, labels: Record<string, string> | undefined, phase?: string, uid = 'uid-1'): Gadget => {
      const made = gadget(resourceVersion, phase, 'g', uid);
      if (labels !== undefined && made.metadata !== undefined) made.metadata.labels = labels;
      return made;
    };
    const patch = { metadata: { labels: { ready: 'ok' } } };

    it('is read applied to the cached version until the cache shows its values, whatever others wrote meanwhile', () => {
      const own = new OwnWrites();
      own.recordPatch(GadgetResource, labelled('9', { app: 'db', ready: 'ok' }), patch);
      // The cache still holds the version before the patch.
      const seen = own.latest(GadgetResource, key, labelled('7', { app: 'db' }));
      expect(seen?.metadata?.labels).toEqual({ app: 'db', ready: 'ok' });
      expect(Object.isFrozen(seen)).toBe(true);
      // Someone else's write that the API server stored before ours (a kubelet's status update): still with our patch.
      const kubelets = labelled('8', { app: 'db' }, 'Running');
      own.observed(GadgetResource, kubelets);
      expect(own.latest(GadgetResource, key, kubelets)).toMatchObject({ metadata: { labels: { app: 'db', ready: 'ok' } }, status: { phase: 'Running' } });
      // Our version arrives: the record ends, and a later change by anyone is read as it is.
      own.observed(GadgetResource, labelled('9', { app: 'db', ready: 'ok' }, 'Running'));
      expect(own.size).toBe(0);
      const unlabelled = labelled('10', { app: 'db' }, 'Running');
      expect(own.latest(GadgetResource, key, unlabelled)).toBe(unlabelled);
    });

    it('ends when the object is gone or another object took its name', () => {
      const own = new OwnWrites();
      own.recordPatch(GadgetResource, labelled('9', { ready: 'ok' }), patch);
      own.observed(GadgetResource, labelled('7', undefined), true);
      expect(own.size).toBe(0);

      own.recordPatch(GadgetResource, labelled('9', { ready: 'ok' }), patch);
      const newcomer = labelled('20', undefined, undefined, 'uid-2');
      expect(own.latest(GadgetResource, key, newcomer)).toBe(newcomer);
      expect(own.size).toBe(0);

      own.recordPatch(GadgetResource, labelled('9', { ready: 'ok' }), patch);
      expect(own.latest(GadgetResource, key, undefined)).toBeUndefined();
      expect(own.size).toBe(0);
    });

    it('merges as the API server does: nested objects field by field, null removes, other values replace', () => {
      const own = new OwnWrites();
      own.recordPatch(GadgetResource, labelled('9', { keep: 'yes' }), { metadata: { labels: { drop: null } }, status: { phase: 'Done' } });
      const seen = own.latest(GadgetResource, key, labelled('7', { keep: 'yes', drop: 'me' }, 'Running'));
      expect(seen?.metadata?.labels).toEqual({ keep: 'yes' });
      expect(seen?.status).toEqual({ phase: 'Done' });
      // Shown once the label is gone and the phase set, with any other fields.
      own.observed(GadgetResource, labelled('9', { keep: 'yes' }, 'Done'));
      expect(own.size).toBe(0);
    });

    it('is kept apart from a status write to the same object, each ending on its own', () => {
      const own = new OwnWrites();
      own.record(GadgetResource, gadget('7'), gadget('8', 'Running'));
      own.recordPatch(GadgetResource, labelled('9', { ready: 'ok' }, 'Running'), patch);
      expect(own.latest(GadgetResource, key, gadget('7'))).toMatchObject({ metadata: { labels: { ready: 'ok' } }, status: { phase: 'Running' } });
      expect(own.size).toBe(2);
      own.observed(GadgetResource, labelled('9', { ready: 'ok' }, 'Running'));
      expect(own.size).toBe(0);
    });
  });
});
