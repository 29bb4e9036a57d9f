/**
 * Why a key was queued. controller-runtime's deduplicating queue forgets this (CR #1186, #1997; kube-rs #800); we
 * keep a bounded set per key, merged on dedupe, so logs, spans and /debug/queue can say what triggered a reconcile.
 */

/** The object whose event queued the key (for `owns`/`watches`, a child or related object, not the key itself). */
export interface QueueReasonSource {
  kind: string;
  namespace?: string;
  name: string;
}

export interface QueueReason {
  /** 'Added' | 'Updated' | 'Deleted' | 'Resync' | 'RequeueAfter' | 'Retry' | anything a source wants to say. */
  event: string;
  source?: QueueReasonSource;
  /** When it happened, epoch ms. */
  at: number;
}

/** A reason as callers pass it: `at` defaults to the time of the call. */
export type QueueReasonInput = Omit<QueueReason, 'at'> & { at?: number };

/** Distinct event+source pairs kept per key; more are dropped oldest first and counted. */
export const MAX_REASONS_PER_KEY = 8;

function identityOf(reason: QueueReason): string {
  const source = reason.source;
  return source === undefined
    ? reason.event
    : `${reason.event}\u0000${source.kind}\u0000${source.namespace ?? ''}\u0000${source.name}`;
}

function frozenReason(input: QueueReasonInput, now: number): QueueReason {
  const { event, source, at = now } = input;
  return Object.freeze(
    source === undefined ? { event, at } : { event, source: Object.freeze({ ...source }), at },
  );
}

/** The reasons of one pending key: at most {@link MAX_REASONS_PER_KEY} distinct event+source pairs, oldest first. */
export class QueueReasons {
  #reasons: QueueReason[] = [];
  #dropped = 0;

  static of(input: QueueReasonInput | undefined, now: number): QueueReasons {
    const reasons = new QueueReasons();
    if (input !== undefined) reasons.add(frozenReason(input, now));
    return reasons;
  }

  get list(): readonly QueueReason[] {
    return this.#reasons;
  }

  /** How many distinct reasons were pushed out by newer ones. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Adds or refreshes a reason; a repeat of the same event+source moves to its new time instead of taking a slot. */
  add(reason: QueueReason): void {
    const identity = identityOf(reason);
    const existingIndex = this.#reasons.findIndex((r) => identityOf(r) === identity);
    const existing = this.#reasons[existingIndex];
    if (existing !== undefined) {
      if (existing.at > reason.at) return; // an older repeat adds nothing
      this.#reasons.splice(existingIndex, 1);
    }
    // Keep the list ordered by time; reasons nearly always arrive in order, so search from the end.
    let index = this.#reasons.length;
    while (index > 0 && (this.#reasons[index - 1]?.at ?? 0) > reason.at) index--;
    this.#reasons.splice(index, 0, reason);
    if (this.#reasons.length > MAX_REASONS_PER_KEY) {
      this.#reasons.shift();
      this.#dropped++;
    }
  }

  merge(other: QueueReasons): void {
    for (const reason of other.#reasons) this.add(reason);
    this.#dropped += other.#dropped;
  }
}
