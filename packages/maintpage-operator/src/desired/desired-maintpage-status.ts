import { isDeepStrictEqual } from 'node:util';
import { metav1Time, setStatusCondition, type Condition, type NewCondition } from '@k8s-operators/controller-core';
import type { MaintPage, MaintPageStatus } from '../api/maintpage-resource.ts';
import { MaintPageConditionType, MaintPageReason, type PublishStatus } from '../api/maintpage-status-values.ts';
import type { Switch } from './switch-decision.ts';

/**
 * The status to write after a reconcile, and whether it differs from the one stored: writing only on change keeps
 * the operator from updating the MaintPage (and waking every watcher) on each pass.
 */

/** What a reconcile found; a `SwitchDecision` is one. Fields left `undefined` keep their stored value. */
export interface StatusOutcome {
  conditions: readonly NewCondition[];
  publishStatus?: PublishStatus | undefined;
  appReadyReplicas?: number | undefined;
  maintenanceReadyReplicas?: number | undefined;
  /** Set when the Service moved in this reconcile: `lastSwitchTime` becomes now. */
  switched?: Switch | undefined;
  /**
   * Whether the Service waits to move to the wanted set: `switchWantedTime` keeps the time that was first seen (now,
   * when not set yet); `false` removes it.
   */
  switchPending?: boolean | undefined;
}

export function desiredMaintPageStatus(
  maintPage: MaintPage,
  outcome: StatusOutcome,
  now: Date,
): { status: MaintPageStatus; changed: boolean } {
  const previous = maintPage.status ?? {};
  let conditions: Condition[] = [...(previous.conditions ?? [])];
  for (const condition of outcome.conditions) {
    conditions = setStatusCondition(conditions, condition, now).conditions;
  }
  // Fields without a value are left out rather than set to undefined, so the comparison with the stored status (which
  // has no undefined values) sees only real differences.
  const status: MaintPageStatus = { ...previous, conditions };
  const publishStatus = outcome.publishStatus ?? previous.maintpublishstatus;
  if (publishStatus !== undefined) status.maintpublishstatus = publishStatus;
  const generation = maintPage.metadata.generation;
  if (generation !== undefined) status.observedGeneration = generation;
  if (outcome.appReadyReplicas !== undefined) status.appReadyReplicas = outcome.appReadyReplicas;
  if (outcome.maintenanceReadyReplicas !== undefined) {
    status.maintenanceReadyReplicas = outcome.maintenanceReadyReplicas;
  }
  if (outcome.switched !== undefined) status.lastSwitchTime = metav1Time(now);
  if (outcome.switchPending === true) status.switchWantedTime = previous.switchWantedTime ?? now.toISOString();
  if (outcome.switchPending === false) delete status.switchWantedTime;
  return { status, changed: !isDeepStrictEqual(status, previous) };
}

/**
 * Seconds from `status.switchWantedTime` to `now`, for a switch made now: 0 when the reconcile that first saw the
 * switch wanted made it, and never below 0, as a new leader's clock may be behind the old one's.
 */
export function switchLatencySeconds(maintPage: MaintPage, now: Date): number {
  const since = maintPage.status?.switchWantedTime;
  const sinceMs = since === undefined ? Number.NaN : Date.parse(since);
  return Number.isNaN(sinceMs) ? 0 : Math.max(0, (now.getTime() - sinceMs) / 1000);
}

/** The outcome for a MaintPage whose spec has a problem (`resolveMaintPage` found it): nothing is switched. */
export function invalidSpecOutcome(maintPage: MaintPage, problem: string): StatusOutcome {
  return blockedOutcome(maintPage, MaintPageReason.InvalidSpec, problem);
}

/** The outcome when the controller cannot act at all (bad spec, a name owned by someone else): Ready=False with why. */
export function blockedOutcome(maintPage: MaintPage, reason: MaintPageReason, message: string): StatusOutcome {
  const generation = maintPage.metadata.generation;
  const condition = (type: string, status: 'True' | 'False'): NewCondition => ({
    type,
    status,
    reason,
    message,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  });
  return {
    conditions: [
      condition(MaintPageConditionType.Ready, 'False'),
      condition(MaintPageConditionType.Progressing, 'False'),
    ],
  };
}
