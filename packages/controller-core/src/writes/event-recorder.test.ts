import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../client/errors.ts';
import { requestSignal, withRequestSignal } from '../client/request-scope.ts';
import type { Patch } from '../client/kube-client.ts';
import type { ResourceRef } from '../client/resources.ts';
import { createLogger } from '../log.ts';
import type { ObjectKey } from '../objects/object-key.ts';
import { EventRecorder, truncateNote, type EventDetails, type EventRecorderOptions } from './event-recorder.ts';

interface SentEvent {
  metadata: { name: string; namespace: string };
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reason: string;
  note: string;
  [field: string]: unknown;
}

/** An in-memory Event API: records every call, stores Events, and fails calls on demand. */
class FakeEventApi {
  readonly calls: { verb: 'create' | 'patch'; name: string; body: unknown }[] = [];
  /** The signal each call would carry from its request scope (client/request-scope.ts). */
  readonly scopes: (AbortSignal | undefined)[] = [];
  readonly events = new Map<string, SentEvent>();
  readonly failures: Error[] = [];

  create<T extends KubernetesObject>(_ref: ResourceRef<T>, obj: T): Promise<T> {
    const event = structuredClone(obj) as unknown as SentEvent;
    this.calls.push({ verb: 'create', name: event.metadata.name, body: event });
    this.scopes.push(requestSignal(undefined));
    const failure = this.failures.shift();
    if (failure) return Promise.reject(failure);
    this.events.set(event.metadata.name, event);
    return Promise.resolve(event as unknown as T);
  }

  patch<T extends KubernetesObject>(_ref: ResourceRef<T>, key: ObjectKey, patch: Patch): Promise<T> {
    this.calls.push({ verb: 'patch', name: key.name, body: patch.patch });
    const failure = this.failures.shift();
    if (failure) return Promise.reject(failure);
    const event = this.events.get(key.name);
    if (!event) return Promise.reject(notFound(key.name));
    Object.assign(event, patch.patch);
    return Promise.resolve(event as unknown as T);
  }

  list(): SentEvent[] {
    return [...this.events.values()];
  }
}

function notFound(name: string): ApiError {
  return new ApiError({ status: 404, body: { kind: 'Status', reason: 'NotFound', details: { name } }, request: `PATCH events/${name}` });
}

const gadget = Object.freeze({
  apiVersion: 'example.com/v1',
  kind: 'Gadget',
  metadata: Object.freeze({ namespace: 'shop', name: 'g1', uid: 'uid-g1', resourceVersion: '5' }),
});
const failed: EventDetails = { type: 'Warning', reason: 'BackupFailed', action: 'CreateBackup', note: 'bucket unreachable' };
const START = new Date('2026-03-01T10:00:00.000Z');

let api: FakeEventApi;
let logLines: { msg: string; [field: string]: unknown }[];

function recorder(options: Partial<EventRecorderOptions> = {}): EventRecorder {
  const logger = createLogger({ destination: { write: (line: string) => logLines.push(JSON.parse(line) as { msg: string }) } });
  return new EventRecorder(api, { reportingController: 'example.com/gadget-controller', reportingInstance: 'gadget-0', logger, ...options });
}

beforeEach(() => {
  vi.useFakeTimers({ now: START });
  api = new FakeEventApi();
  logLines = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('EventRecorder', () => {
  it('creates an Event for the first occurrence at once, with the reporting controller and instance', async () => {
    const events = recorder();
    events.event(gadget, { ...failed, related: { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop', name: 'backup-1', uid: 'uid-pod' } } });
    await vi.advanceTimersByTimeAsync(0);
    expect(api.list()).toEqual([
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: expect.stringMatching(/^g1\.[0-9a-f]{16}$/) as unknown, namespace: 'shop' },
        eventTime: '2026-03-01T10:00:00.000000Z',
        reportingController: 'example.com/gadget-controller',
        reportingInstance: 'gadget-0',
        type: 'Warning',
        reason: 'BackupFailed',
        action: 'CreateBackup',
        note: 'bucket unreachable',
        regarding: { apiVersion: 'example.com/v1', kind: 'Gadget', namespace: 'shop', name: 'g1', uid: 'uid-g1', resourceVersion: '5' },
        related: { apiVersion: 'v1', kind: 'Pod', namespace: 'shop', name: 'backup-1', uid: 'uid-pod' },
      },
    ]);
  });

  it('writes an Event outside the scope of the reconcile that emitted it, so that reconcile\'s abort cuts no write', async () => {
    const events = recorder();
    const reconcile = new AbortController();
    withRequestSignal(reconcile.signal, () => { events.event(gadget, failed); });
    reconcile.abort(new Error('reconcile timed out'));
    await vi.advanceTimersByTimeAsync(0);
    expect(api.list()).toHaveLength(1);
    expect(api.scopes).toEqual([undefined]);
  });

  it('counts repeats into one PATCH of the series per write interval', async () => {
    const events = recorder();
    events.event(gadget, failed);
    await vi.advanceTimersByTimeAsync(0);
    for (let second = 1; second <= 5; second++) {
      await vi.advanceTimersByTimeAsync(1000);
      events.event(gadget, failed);
    }
    expect(api.calls.map((call) => call.verb)).toEqual(['create']);

    await vi.advanceTimersByTimeAsync(25_000); // 30 s after the create
    expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
    expect(api.calls[1]?.body).toEqual({ series: { count: 6, lastObservedTime: '2026-03-01T10:00:05.000000Z' } });

    await vi.advanceTimersByTimeAsync(120_000);
    expect(api.calls).toHaveLength(2);
    expect(api.list()).toHaveLength(1);
  });

  it('counts a burst into one Event', async () => {
    const events = recorder();
    for (let i = 0; i < 10; i++) events.event(gadget, failed);
    await events.flush();
    expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
    expect(api.list()[0]?.series).toEqual({ count: 10, lastObservedTime: '2026-03-01T10:00:00.000000Z' });
  });

  it('starts a new Event when the event recurs after the series window', async () => {
    const events = recorder({ seriesWindowMs: 60_000 });
    events.event(gadget, failed);
    await vi.advanceTimersByTimeAsync(30_000);
    events.event(gadget, failed);
    await vi.advanceTimersByTimeAsync(90_000); // the repeat is written at once; then 90 s pass without another
    events.event(gadget, failed);
    await events.flush();
    expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch', 'create']);
    const [first, second] = api.list();
    expect(first?.series?.count).toBe(2);
    expect(second).toMatchObject({ eventTime: '2026-03-01T10:02:00.000000Z' });
    expect(second?.series).toBeUndefined();
  });

  it('keeps events that differ in regarding object, type, reason, action or note apart', async () => {
    const events = recorder();
    const other = { ...gadget, metadata: { ...gadget.metadata, name: 'g2', uid: 'uid-g2' } };
    events.event(gadget, failed);
    events.event(other, failed);
    events.event(gadget, { ...failed, type: 'Normal' });
    events.event(gadget, { ...failed, reason: 'BackupSkipped' });
    events.event(gadget, { ...failed, action: 'UploadBackup' });
    events.event(gadget, { ...failed, note: 'bucket full' });
    events.event(gadget, failed);
    await events.flush();
    const written = api.list().map((event) => {
      const regarding = event.regarding as { name: string };
      return [regarding.name, event.type, event.reason, event.action, event.note, event.series?.count ?? 1];
    });
    expect(written).toEqual([
      ['g1', 'Warning', 'BackupFailed', 'CreateBackup', 'bucket unreachable', 2],
      ['g2', 'Warning', 'BackupFailed', 'CreateBackup', 'bucket unreachable', 1],
      ['g1', 'Normal', 'BackupFailed', 'CreateBackup', 'bucket unreachable', 1],
      ['g1', 'Warning', 'BackupSkipped', 'CreateBackup', 'bucket unreachable', 1],
      ['g1', 'Warning', 'BackupFailed', 'UploadBackup', 'bucket unreachable', 1],
      ['g1', 'Warning', 'BackupFailed', 'CreateBackup', 'bucket full', 1],
    ]);
  });

  it('files events about cluster-scoped objects in the default namespace', async () => {
    const events = recorder();
    events.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-node' } }, failed);
    await events.flush();
    expect(api.list()[0]?.metadata.namespace).toBe('default');
  });

  it('never throws: a failed write is logged, and the next occurrence writes everything so far', async () => {
    const events = recorder();
    api.failures.push(new ApiError({ status: 403, body: { kind: 'Status', reason: 'Forbidden', message: 'events is forbidden' }, request: 'POST events' }));
    events.event(gadget, failed);
    await events.flush();
    expect(api.list()).toHaveLength(0);
    expect(logLines).toMatchObject([{ level: 'warn', msg: 'could not write an Event', event: { reason: 'BackupFailed', count: 1 } }]);

    await vi.advanceTimersByTimeAsync(30_000);
    events.event(gadget, failed);
    await vi.advanceTimersByTimeAsync(0);
    expect(api.list()).toMatchObject([{ reason: 'BackupFailed', series: { count: 2 } }]);
  });

  it('starts a new Event carrying the series when the old one has expired from the API server', async () => {
    const events = recorder();
    events.event(gadget, failed);
    await events.flush();
    api.events.clear(); // --event-ttl deleted it
    events.event(gadget, failed);
    await events.flush();
    expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch', 'create']);
    expect(api.list()).toMatchObject([{ series: { count: 2 } }]);
  });

  it('tracks at most maxSeries series, dropping new ones and logging once', async () => {
    const events = recorder({ maxSeries: 2, seriesWindowMs: 60_000 });
    for (const reason of ['A', 'B', 'C', 'D']) events.event(gadget, { ...failed, reason });
    events.event(gadget, { ...failed, reason: 'A' }); // an existing series still counts
    await events.flush();
    expect(events.dropped).toBe(2);
    expect(api.list().map((event) => [event.reason, event.series?.count ?? 1])).toEqual([
      ['A', 2],
      ['B', 1],
    ]);
    expect(logLines.filter((line) => line.msg.startsWith('too many Event series'))).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(61_000); // both series end, making room
    events.event(gadget, { ...failed, reason: 'C' });
    await events.flush();
    expect(api.list().map((event) => event.reason)).toEqual(['A', 'B', 'C']);
  });

  it('lets ended series go within a series window, without waiting to be full', async () => {
    const events = recorder({ seriesWindowMs: 60_000 });
    const gadgets = Array.from({ length: 50 }, (_, i) => ({ ...gadget, metadata: { ...gadget.metadata, name: `g${String(i)}`, uid: `uid-g${String(i)}` } }));
    for (const each of gadgets) events.event(each, failed);
    await events.flush();
    expect(events.tracked).toBe(50);

    // Objects deleted long ago: their series end with the window and are let go at the next new series.
    await vi.advanceTimersByTimeAsync(121_000);
    events.event(gadget, failed);
    await events.flush();
    expect(events.tracked).toBe(1);
    expect(api.list()).toHaveLength(51);
  });

  it('cuts long notes to the 1024-byte limit with an ellipsis', async () => {
    const events = recorder();
    events.event(gadget, { ...failed, note: 'x'.repeat(5000) });
    await events.flush();
    const note = api.list()[0]?.note ?? '';
    expect(Buffer.byteLength(note)).toBe(1024);
    expect(note.endsWith('x…')).toBe(true);
  });

  it('refuses reporting names the API server would reject', () => {
    expect(() => recorder({ reportingController: 'not a name' })).toThrow(/reportingController "not a name" must be a qualified name/);
    expect(() => recorder({ reportingInstance: '' })).toThrow(/reportingInstance must be 1 to 128 characters/);
  });
});

describe('truncateNote', () => {
  it('leaves notes within the limit alone', () => {
    expect(truncateNote('x'.repeat(1024))).toBe('x'.repeat(1024));
  });

  it('counts bytes, not characters, and never splits a character', () => {
    const note = truncateNote('é'.repeat(600)); // 1200 bytes
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(1024);
    expect(note).toBe(`${'é'.repeat(510)}…`);
    expect(truncateNote(`${'x'.repeat(1020)}😀😀`)).toBe(`${'x'.repeat(1020)}…`);
  });
});
