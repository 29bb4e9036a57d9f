import { randomInt } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ApiError, isNotFound } from '../client/errors.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { outsideRequestScope } from '../client/request-scope.ts';
import { defineResource } from '../client/resources.ts';
import { createLogger } from '../log.ts';

export type EventType = 'Normal' | 'Warning';

/**
 * One occurrence of something worth telling `kubectl describe` readers. Notes are shown to anyone who may read Events
 * in the namespace, which is usually more people than may read its Secrets: never put Secret data, passwords or
 * tokens in a note — say which Secret or key is wrong, not what it holds.
 */
export interface EventDetails {
  type: EventType;
  /** Why the action was taken, a CamelCase word of at most 128 characters, e.g. `BackupFailed`. */
  reason: string;
  /** What was done or attempted, a CamelCase word of at most 128 characters, e.g. `CreateBackup`. */
  action: string;
  /** Human-readable detail; cut to the API's 1024-byte limit with an ellipsis. */
  note: string;
  /** A second object involved, e.g. the Pod a backup ran in. Default none. */
  related?: KubernetesObject;
}

export interface EventRecorderOptions {
  /** Who reports, as `domain/name` (a qualified name), e.g. `maintpage.example.com/maintpage-controller`. */
  reportingController: string;
  /** Which replica reports, at most 128 characters; usually the Pod name. */
  reportingInstance: string;
  /**
   * Repeats of an event within this long of its previous occurrence count into one Event's `series` instead of making
   * new Event objects. Default 6 minutes, client-go's `finishTime`.
   */
  seriesWindowMs?: number;
  /**
   * At most one write per event series per this long; repeats in between are counted into the next write. Default
   * 30 s, client-go's `refreshTime`.
   */
  minWriteIntervalMs?: number;
  /**
   * At most this many series are tracked (and so queued) at once; events that would start another are dropped and
   * counted in `dropped`. Default 4096, client-go's event cache size.
   */
  maxSeries?: number;
  /** Where failed writes are reported. Default: a `createLogger()` logger. */
  logger?: Logger;
}

/** An `ObjectReference` as the Event API takes it. */
interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

/** An `events.k8s.io/v1` Event as it is sent: times are MicroTime strings. */
interface EventObject extends KubernetesObject {
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: EventType;
  regarding: ObjectReference;
  related?: ObjectReference;
}

// Typed with the wire format of times; `Resources.Event` carries client-node's `Date`-typed model.
const EVENTS = defineResource<EventObject>({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true });

/** The API server's limit on `note`, in bytes (Go's `len`), not characters. */
const NOTE_LIMIT_BYTES = 1024;
const ELLIPSIS = '…';
const REPORTING_INSTANCE_LIMIT = 128;
// apimachinery's ValidateQualifiedName: an optional DNS-subdomain prefix and a name of at most 63 characters.
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;

/** The occurrences of one event (same regarding object, type, reason, action and note) that share an Event object. */
interface Series {
  readonly body: Omit<EventObject, 'metadata' | 'series'>;
  readonly namespace: string;
  /** The Event object's name, once it exists. */
  name: string | undefined;
  count: number;
  lastObservedAt: number;
  /** `count` as last written to the API server. */
  written: number;
  lastWriteAt: number | undefined;
  /** Set while the series waits for `minWriteIntervalMs` to pass. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * Records `events.k8s.io/v1` Events, aggregating repeats as client-go's event recorder does: the first occurrence
 * creates an Event; repeats within the series window update its `series.count` and `series.lastObservedTime` with a
 * PATCH, at most once per `minWriteIntervalMs`, so an error that recurs every reconcile makes one Event that counts up
 * rather than thousands.
 *
 * `event()` never blocks and never throws: writes happen in the background, one at a time, and a failed write is
 * logged (a series that recurs tries again with its next write). Memory is bounded by `maxSeries`. Call `flush()`
 * on shutdown to send what is pending.
 */
export class EventRecorder {
  readonly #client: Pick<KubeClient, 'create' | 'patch'>;
  readonly #reportingController: string;
  readonly #reportingInstance: string;
  readonly #seriesWindowMs: number;
  readonly #minWriteIntervalMs: number;
  readonly #maxSeries: number;
  readonly #logger: Logger;
  readonly #series = new Map<string, Series>();
  /** Series whose write may go now, in order. */
  readonly #due = new Set<Series>();
  /** Series waiting for their write interval to pass. */
  readonly #waiting = new Set<Series>();
  #writing: Series | undefined;
  #draining: Promise<void> | undefined;
  #dropped = 0;
  /** When ended series were last let go. */
  #sweptAt = Number.NEGATIVE_INFINITY;
  /** Whether the last new series was dropped, so a full recorder logs once rather than per event. */
  #overflowing = false;

  constructor(client: Pick<KubeClient, 'create' | 'patch'>, options: EventRecorderOptions) {
    const { reportingController, reportingInstance } = options;
    if (!QUALIFIED_NAME.test(reportingController)) {
      throw new Error(
        `EventRecorder: reportingController ${JSON.stringify(reportingController)} must be a qualified name such as ` +
          '"example.com/my-controller"',
      );
    }
    if (reportingInstance === '' || reportingInstance.length > REPORTING_INSTANCE_LIMIT) {
      throw new Error(`EventRecorder: reportingInstance must be 1 to ${REPORTING_INSTANCE_LIMIT} characters`);
    }
    this.#client = client;
    this.#reportingController = reportingController;
    this.#reportingInstance = reportingInstance;
    this.#seriesWindowMs = options.seriesWindowMs ?? 6 * 60_000;
    this.#minWriteIntervalMs = options.minWriteIntervalMs ?? 30_000;
    this.#maxSeries = options.maxSeries ?? 4096;
    this.#logger = (options.logger ?? createLogger()).child({ component: 'event-recorder' });
  }

  /** Series tracked now: those that may still recur or write, and ended ones for up to one series window. */
  get tracked(): number {
    return this.#series.size;
  }

  /** Events not recorded because `maxSeries` series were already tracked. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Records an event about `regarding` (an object read from the API server). Returns at once; never throws. */
  event(regarding: KubernetesObject, details: EventDetails): void {
    try {
      this.#record(regarding, details, Date.now());
    } catch (error) {
      this.#logger.error({ err: error, reason: details.reason }, 'could not record an Event');
    }
  }

  /**
   * Sends every pending write now, whatever the write interval, and resolves when the API server has answered them
   * all (failures are logged, not thrown). For shutdown and tests.
   */
  async flush(): Promise<void> {
    for (;;) {
      for (const series of this.#waiting) {
        clearTimeout(series.timer);
        series.timer = undefined;
        this.#due.add(series);
      }
      this.#waiting.clear();
      this.#kick();
      if (this.#draining === undefined) return;
      await this.#draining;
    }
  }

  #record(regarding: KubernetesObject, details: EventDetails, now: number): void {
    const reference = objectReference(regarding);
    const note = truncateNote(details.note);
    const { type, reason, action } = details;
    // Without a UID (an object never stored) the object is known by its coordinates.
    const identity = reference.uid ?? [reference.apiVersion, reference.kind, reference.namespace, reference.name];
    const key = JSON.stringify([identity, type, reason, action, note]);
    let series = this.#series.get(key);
    if (series !== undefined && this.#ended(series, now)) {
      this.#series.delete(key);
      series = undefined;
    }
    if (series === undefined) {
      if (!this.#hasRoom(now)) {
        this.#dropped++;
        // Once per episode, not once per dropped event: the log must not become the next flood.
        if (!this.#overflowing) {
          this.#logger.warn({ maxSeries: this.#maxSeries, reason }, 'too many Event series at once; dropping new events');
        }
        this.#overflowing = true;
        return;
      }
      this.#overflowing = false;
      series = {
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          eventTime: microTime(now),
          reportingController: this.#reportingController,
          reportingInstance: this.#reportingInstance,
          action,
          reason,
          note,
          type,
          regarding: reference,
          ...(details.related === undefined ? {} : { related: objectReference(details.related) }),
        },
        // Events live in the namespace of what they are about; cluster-scoped objects' go to `default`, as client-go does.
        namespace: reference.namespace ?? 'default',
        name: undefined,
        count: 0,
        lastObservedAt: now,
        written: 0,
        lastWriteAt: undefined,
        timer: undefined,
      };
      this.#series.set(key, series);
    }
    series.count++;
    series.lastObservedAt = now;
    this.#schedule(series, now);
  }

  /** A series ends when it has not recurred within the window and has nothing left to write. */
  #ended(series: Series, now: number): boolean {
    const pending = this.#due.has(series) || this.#waiting.has(series) || this.#writing === series;
    return !pending && now - series.lastObservedAt > this.#seriesWindowMs;
  }

  #hasRoom(now: number): boolean {
    // Ended series are let go once per series window, not only when the recorder is full: each holds its Event's body,
    // and an operator that creates and deletes objects all day would otherwise grow to hold maxSeries of them (several
    // MiB, seen as RSS growing for hours in the soak) long after the objects are gone.
    if (this.#series.size >= this.#maxSeries || now - this.#sweptAt >= this.#seriesWindowMs) {
      for (const [key, series] of this.#series) {
        if (this.#ended(series, now)) this.#series.delete(key);
      }
      this.#sweptAt = now;
    }
    return this.#series.size < this.#maxSeries;
  }

  #schedule(series: Series, now: number): void {
    // A write already queued reads the count when it runs, so it carries this occurrence too.
    if (this.#due.has(series) || this.#waiting.has(series)) return;
    const dueAt = series.lastWriteAt === undefined ? now : series.lastWriteAt + this.#minWriteIntervalMs;
    if (dueAt <= now) {
      this.#due.add(series);
      this.#kick();
      return;
    }
    this.#waiting.add(series);
    series.timer = setTimeout(() => {
      series.timer = undefined;
      this.#waiting.delete(series);
      this.#due.add(series);
      this.#kick();
    }, dueAt - now);
    // A pending Event must not keep a finished process alive; `flush()` is how to send it before exit.
    series.timer.unref();
  }

  #kick(): void {
    if (this.#draining !== undefined || this.#due.size === 0) return;
    // The drain writes every reconcile's Events, so it must not end with the reconcile that happened to start it.
    this.#draining = outsideRequestScope(() => this.#drain());
  }

  async #drain(): Promise<void> {
    // A Set's iterator also visits members added while it runs, so series due meanwhile are written in this pass.
    for (const series of this.#due) {
      this.#due.delete(series);
      this.#writing = series;
      await this.#write(series);
      this.#writing = undefined;
    }
    this.#draining = undefined;
  }

  /** Creates the series' Event, or patches its series; never throws. */
  async #write(series: Series): Promise<void> {
    const { count, lastObservedAt } = series;
    series.lastWriteAt = Date.now();
    if (count === series.written) return;
    const seriesField = count > 1 ? { count, lastObservedTime: microTime(lastObservedAt) } : undefined;
    try {
      if (series.name !== undefined && seriesField !== undefined) {
        try {
          await this.#client.patch(EVENTS, { namespace: series.namespace, name: series.name }, { type: 'merge', patch: { series: seriesField } });
          series.written = count;
          return;
        } catch (error) {
          // The API server deletes Events after --event-ttl (1 h by default): a long series carries on in a new one.
          if (!(isNotFound(error) && error instanceof ApiError && error.details?.name === series.name)) throw error;
        }
      }
      const created = await this.#client.create(EVENTS, {
        ...series.body,
        metadata: { name: eventName(series.body.regarding.name ?? ''), namespace: series.namespace },
        ...(seriesField === undefined ? {} : { series: seriesField }),
      });
      series.name = created.metadata?.name;
      series.written = count;
    } catch (error) {
      const { type, reason, action, regarding } = series.body;
      this.#logger.warn({ err: error, event: { type, reason, action, regarding, count } }, 'could not write an Event');
    }
  }
}

function objectReference(obj: KubernetesObject): ObjectReference {
  const { apiVersion, kind } = obj;
  const { namespace, name, uid, resourceVersion } = obj.metadata ?? {};
  const reference: ObjectReference = {};
  if (apiVersion !== undefined) reference.apiVersion = apiVersion;
  if (kind !== undefined) reference.kind = kind;
  if (namespace !== undefined && namespace !== '') reference.namespace = namespace;
  if (name !== undefined) reference.name = name;
  if (uid !== undefined) reference.uid = uid;
  if (resourceVersion !== undefined) reference.resourceVersion = resourceVersion;
  return reference;
}

/** `note` cut to the API's limit in UTF-8 bytes, ellipsis included, never inside a character. */
export function truncateNote(note: string): string {
  if (Buffer.byteLength(note) <= NOTE_LIMIT_BYTES) return note;
  const budget = NOTE_LIMIT_BYTES - Buffer.byteLength(ELLIPSIS);
  let bytes = 0;
  let end = 0;
  for (const character of note) {
    bytes += Buffer.byteLength(character);
    if (bytes > budget) break;
    end += character.length;
  }
  return note.slice(0, end) + ELLIPSIS;
}

/** metav1.MicroTime's wire format: RFC 3339 with six fractional digits (JavaScript time has three). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** `<regarding name>.<hex nanoseconds>`, client-go's Event names; the sub-millisecond digits are random. */
function eventName(regardingName: string): string {
  const nanoseconds = BigInt(Date.now()) * 1_000_000n + BigInt(randomInt(1_000_000));
  return `${regardingName}.${nanoseconds.toString(16)}`;
}
