import { metav1Time } from './objects/metav1-time.ts';

/**
 * `status.conditions` helpers with apimachinery's semantics (`k8s.io/apimachinery/pkg/api/meta/conditions.go`), made
 * immutable because objects from the cache are frozen: every function returns a new list and leaves its input alone.
 *
 * `changed` tells the caller whether a status write is needed at all: writing only on change is what keeps a fleet of
 * controllers from hammering the API server with no-op updates.
 */

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** `metav1.Condition`, as it appears in JSON. */
export interface Condition {
  /** CamelCase, or `foo.example.com/CamelCase`; unique within the list. */
  type: string;
  status: ConditionStatus;
  /** The `.metadata.generation` the condition was computed from. */
  observedGeneration?: number;
  /** RFC 3339, second precision, UTC (`2026-01-02T15:04:05Z`), as metav1.Time serialises. */
  lastTransitionTime: string;
  /** CamelCase identifier of why the condition is what it is; never empty. */
  reason: string;
  /** Human-readable detail; may be empty. */
  message: string;
}

/** A condition as callers set it: `message` defaults to '' and `lastTransitionTime` to now. */
export interface NewCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string | Date;
}

/** The summary condition kept first in every list we write (project convention: `Ready` first). */
export const READY_CONDITION = 'Ready';

// Patterns and limits from metav1.Condition's validation markers; the API server rejects anything else, so a
// mistake here is the programmer's and should fail loudly where it is made, not as a 422 on the status write.
const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const TYPE_PATTERN =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

function validate(condition: NewCondition): void {
  const { type, status, reason, message = '' } = condition;
  if (type.length > 316 || !TYPE_PATTERN.test(type)) {
    throw new Error(
      `condition type ${JSON.stringify(type)} must be CamelCase or foo.example.com/CamelCase, at most 316 characters`,
    );
  }
  if (!STATUSES.includes(status)) {
    throw new Error(`condition ${type}: status ${JSON.stringify(status)} must be one of "True", "False", "Unknown"`);
  }
  if (reason.length > 1024 || !REASON_PATTERN.test(reason)) {
    throw new Error(
      `condition ${type}: reason ${JSON.stringify(reason)} must match ${REASON_PATTERN.source} (a CamelCase word such ` +
        'as "BackupFailed"), at most 1024 characters',
    );
  }
  if (message.length > 32768) throw new Error(`condition ${type}: message is longer than 32768 characters`);
  const generation = condition.observedGeneration;
  if (generation !== undefined && !(Number.isSafeInteger(generation) && generation >= 0)) {
    throw new Error(`condition ${type}: observedGeneration must be a non-negative integer, got ${generation}`);
  }
}

function transitionTime(given: string | Date | undefined, now: Date): string {
  if (given === undefined) return metav1Time(now);
  if (typeof given !== 'string') return metav1Time(given);
  if (Number.isNaN(Date.parse(given))) throw new Error(`lastTransitionTime ${JSON.stringify(given)} is not an RFC 3339 time`);
  return given;
}

/** Returns the list with `Ready` first and the others in their order. */
function readyFirst(conditions: Condition[]): Condition[] {
  const ready = conditions.find((c) => c.type === READY_CONDITION);
  if (ready === undefined || conditions[0] === ready) return conditions;
  return [ready, ...conditions.filter((c) => c !== ready)];
}

/**
 * Sets `condition` in `conditions`, apimachinery style:
 * - a new type is added with `lastTransitionTime` = `condition.lastTransitionTime` or `now`;
 * - for an existing type, `lastTransitionTime` moves only when `status` changes; `reason`, `message` and
 *   `observedGeneration` are updated independently and each counts as a change.
 * `Ready` is kept first. Throws on values the API server would reject (bad type or reason, too long a message).
 */
export function setStatusCondition(
  conditions: readonly Condition[] | undefined,
  condition: NewCondition,
  now: Date = new Date(),
): { conditions: Condition[]; changed: boolean } {
  validate(condition);
  const list = [...(conditions ?? [])];
  const message = condition.message ?? '';
  const index = list.findIndex((c) => c.type === condition.type);
  const existing = list[index];
  let changed = false;
  if (existing === undefined) {
    const added: Condition = {
      type: condition.type,
      status: condition.status,
      lastTransitionTime: transitionTime(condition.lastTransitionTime, now),
      reason: condition.reason,
      message,
    };
    if (condition.observedGeneration !== undefined) added.observedGeneration = condition.observedGeneration;
    list.push(added);
    changed = true;
  } else {
    const updated: Condition = { ...existing };
    if (existing.status !== condition.status) {
      updated.status = condition.status;
      updated.lastTransitionTime = transitionTime(condition.lastTransitionTime, now);
      changed = true;
    }
    if (existing.reason !== condition.reason) {
      updated.reason = condition.reason;
      changed = true;
    }
    if (existing.message !== message) {
      updated.message = message;
      changed = true;
    }
    // metav1 omits a zero observedGeneration from JSON, so absent and 0 are the same value.
    if ((existing.observedGeneration ?? 0) !== (condition.observedGeneration ?? 0)) {
      if (condition.observedGeneration === undefined) delete updated.observedGeneration;
      else updated.observedGeneration = condition.observedGeneration;
      changed = true;
    }
    if (changed) list[index] = updated;
  }
  const ordered = readyFirst(list);
  return { conditions: ordered, changed: changed || ordered !== list };
}

/** Removes the condition of type `type`; `changed` is false when there was none. */
export function removeStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): { conditions: Condition[]; changed: boolean } {
  const list = conditions ?? [];
  const kept = list.filter((c) => c.type !== type);
  return { conditions: kept, changed: kept.length !== list.length };
}

export function findStatusCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'True';
}

export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'False';
}

/** True when a condition of `type` exists with exactly `status`. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}
