import { requiredName, type NewCondition } from '@k8s-operators/controller-core';
import type { V1Service } from '@kubernetes/client-node';
import type { ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import {
  MaintPageConditionType,
  MaintPageReason,
  NOT_PUBLISHED,
  PUBLISHED,
  type PublishStatus,
} from '../api/maintpage-status-values.ts';
import { isWindowOpen, nextWindowBoundary } from '../schedule/maintenance-window.ts';
import { selectorFor, targetOfSelector, type Target } from './labels.ts';

/**
 * Where the app's Service should send traffic, decided from the MaintPage, the time, and what is observed; pure, so
 * every branch is tested without a cluster.
 *
 * Maintenance is wanted while `maintpagetoggle` is true or the schedule window is open. The Service moves to the
 * maintenance page only once at least one maintenance pod is Ready, and back to the app only once at least one app
 * pod is Ready; until then it stays where it is, and `Progressing` says what it waits for. Traffic never goes to a
 * pod that is still starting.
 */

/** What the reconciler observed. Ready counts come from the Deployments' status or the pods' Ready condition. */
export interface ObservedState {
  appReadyReplicas: number;
  maintenanceReadyReplicas: number;
  /** The app's Service as it is now; `undefined` when it does not exist yet. */
  service: V1Service | undefined;
}

export interface Switch {
  from: Target;
  to: Target;
  /** Event reason: `MaintenanceEnabled` or `MaintenanceDisabled`. */
  reason: 'MaintenanceEnabled' | 'MaintenanceDisabled';
  message: string;
}

export interface SwitchDecision {
  /** Whether maintenance is wanted now (toggle or schedule), whether or not the Service shows it yet. */
  maintenanceWanted: boolean;
  /** The pod set the Service selects after this reconcile. */
  target: Target;
  /** The Service selector for `target`. */
  selector: Record<string, string>;
  /** Set when the Service moves between the app and the maintenance page in this reconcile: record an Event and set `lastSwitchTime`. */
  switched: Switch | undefined;
  /** The Service does not select the wanted set yet: the switch waits for Ready pods (`switchWantedTime`). */
  switchPending: boolean;
  /** The seed's status field, for `target`. */
  publishStatus: PublishStatus;
  /** `Ready`, `Published` and `Progressing`, stamped with the MaintPage's generation. */
  conditions: NewCondition[];
  appReadyReplicas: number;
  maintenanceReadyReplicas: number;
  /** The next time the schedule window opens or closes, if it will. */
  nextScheduleBoundary: Date | undefined;
  /**
   * Reconcile again after this many milliseconds: at the next schedule boundary, or sooner while waiting for pods
   * (pod changes also trigger a reconcile through the Deployments; this is the safety net).
   */
  requeueAfterMs: number | undefined;
}

/** How often to look again while waiting for Ready pods, in case a Deployment event is missed. */
export const WAITING_REQUEUE_MS = 10_000;

function otherTarget(target: Target): Target {
  return target === 'app' ? 'maintenance' : 'app';
}

function podCount(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function isMaintenanceWanted(maintPage: ResolvedMaintPage, now: Date): boolean {
  const config = maintPage.spec.maintpageconfig;
  return config.maintpagetoggle || isWindowOpen(config.schedule, now);
}

/** Why maintenance is on, for messages: "maintpagetoggle is true", "the schedule window is open until …". */
function whyMaintenance(maintPage: ResolvedMaintPage, now: Date): string {
  const config = maintPage.spec.maintpageconfig;
  const end = config.schedule?.end;
  const reasons = [
    ...(config.maintpagetoggle ? ['maintpagetoggle is true'] : []),
    ...(isWindowOpen(config.schedule, now)
      ? [end === undefined ? 'the schedule window is open' : `the schedule window is open until ${end.asWritten}`]
      : []),
  ];
  return reasons.join(' and ');
}

/**
 * The readiness gate. A Service already on one of our two selectors moves only to Ready pods. A Service without one
 * of ours (being created, or edited by hand) gets the wanted set if it has Ready pods, else the other set if that
 * has, else the wanted set: nothing serves either way, and it will be Ready first.
 */
function chooseTarget(current: Target | undefined, desired: Target, ready: (target: Target) => number): Target {
  if (ready(desired) > 0) return desired;
  if (current !== undefined) return current;
  return ready(otherTarget(desired)) > 0 ? otherTarget(desired) : desired;
}

function switchOf(current: Target | undefined, target: Target, why: string): Switch | undefined {
  if (current === undefined || current === target) return undefined;
  return target === 'maintenance'
    ? {
        from: current,
        to: target,
        reason: 'MaintenanceEnabled',
        message: `The Service now sends traffic to the maintenance page: ${why}`,
      }
    : { from: current, to: target, reason: 'MaintenanceDisabled', message: 'The Service now sends traffic to the app again' };
}

interface Situation {
  desired: Target;
  target: Target;
  ready: (target: Target) => number;
  /** Replicas the spec asks for in the wanted set. */
  wantedReplicas: number;
  why: string;
}

/** `Ready` and `Progressing`: both say whether the Service serves what is wanted from Ready pods, or what it waits for. */
function readinessConditions({ desired, target, ready, wantedReplicas, why }: Situation): {
  ready: NewCondition;
  progressing: NewCondition;
} {
  const page = desired === 'app' ? 'app' : 'maintenance page';
  if (target === desired && ready(target) > 0) {
    const reason = target === 'app' ? MaintPageReason.ServingApp : MaintPageReason.ServingMaintenancePage;
    const message =
      `The Service sends traffic to the ${page} (${podCount(ready(target), 'Ready pod')})` +
      (target === 'maintenance' ? ` because ${why}` : '');
    return {
      ready: { type: MaintPageConditionType.Ready, status: 'True', reason, message },
      progressing: { type: MaintPageConditionType.Progressing, status: 'False', reason, message },
    };
  }
  const reason = desired === 'app' ? MaintPageReason.WaitingForAppPods : MaintPageReason.WaitingForMaintenancePods;
  const none = `0 of ${podCount(wantedReplicas, `${page} pod`)} Ready`;
  let message: string;
  if (target === desired) message = `The Service selects the ${page} pods, but none is Ready yet (${none})`;
  else if (desired === 'maintenance') {
    message = `Maintenance is on (${why}), but no maintenance page pod is Ready yet (${none}); the Service stays on the app until one is`;
  } else {
    message = `Maintenance is off, but no app pod is Ready yet (${none}); the Service stays on the maintenance page until one is`;
  }
  return {
    ready: { type: MaintPageConditionType.Ready, status: 'False', reason, message },
    progressing: { type: MaintPageConditionType.Progressing, status: 'True', reason, message },
  };
}

function publishedCondition({ desired, target }: Situation): NewCondition {
  if (target === 'maintenance') {
    return {
      type: MaintPageConditionType.Published,
      status: 'True',
      reason: MaintPageReason.ServingMaintenancePage,
      message: 'The Service selects the maintenance page pods',
    };
  }
  return {
    type: MaintPageConditionType.Published,
    status: 'False',
    reason: desired === 'maintenance' ? MaintPageReason.WaitingForMaintenancePods : MaintPageReason.ServingApp,
    message: 'The Service selects the app pods',
  };
}

export function decideSwitch(maintPage: ResolvedMaintPage, observed: ObservedState, now: Date): SwitchDecision {
  const instance = requiredName(maintPage);
  const config = maintPage.spec.maintpageconfig;
  const maintenanceWanted = isMaintenanceWanted(maintPage, now);
  const desired: Target = maintenanceWanted ? 'maintenance' : 'app';
  const ready = (target: Target): number =>
    target === 'app' ? observed.appReadyReplicas : observed.maintenanceReadyReplicas;
  const current = targetOfSelector(instance, observed.service?.spec?.selector);
  const target = chooseTarget(current, desired, ready);
  const why = whyMaintenance(maintPage, now);
  const situation: Situation = {
    desired,
    target,
    ready,
    wantedReplicas: desired === 'app' ? maintPage.spec.appconfig.replicas : config.replicas,
    why,
  };
  const readiness = readinessConditions(situation);
  const generation = maintPage.metadata.generation;
  const conditions = [readiness.ready, publishedCondition(situation), readiness.progressing].map((condition) => (generation === undefined ? condition : { ...condition, observedGeneration: generation }));

  const waiting = target !== desired || ready(target) === 0;
  const nextScheduleBoundary = nextWindowBoundary(config.schedule, now);
  const requeueCandidates = [
    ...(waiting ? [WAITING_REQUEUE_MS] : []),
    ...(nextScheduleBoundary === undefined ? [] : [nextScheduleBoundary.getTime() - now.getTime()]),
  ];
  return {
    maintenanceWanted,
    target,
    selector: selectorFor(instance, target),
    switched: switchOf(current, target, why),
    switchPending: target !== desired,
    publishStatus: target === 'maintenance' ? PUBLISHED : NOT_PUBLISHED,
    conditions,
    appReadyReplicas: observed.appReadyReplicas,
    maintenanceReadyReplicas: observed.maintenanceReadyReplicas,
    nextScheduleBoundary,
    requeueAfterMs: requeueCandidates.length === 0 ? undefined : Math.min(...requeueCandidates),
  };
}
